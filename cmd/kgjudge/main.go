// Command kgjudge scores predicted knowledge graphs against ground truth.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kgjudge/kgjudge/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
