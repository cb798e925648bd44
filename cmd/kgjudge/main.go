// Command kgjudge scores predicted knowledge graphs against ground truth.
package main

import (
	"os"

	"github.com/kgjudge/kgjudge/cli"
)

// cli.Exec handles SIGINT and SIGTERM (signal.NotifyContext semantics, plus
// a bounded stop: see cli/process.go) and recovers panics.
func main() {
	os.Exit(cli.Exec(os.Args, os.Stdout, os.Stderr))
}
