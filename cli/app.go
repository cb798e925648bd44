// Package cli is how a person asks kgjudge for something: one file per
// subcommand (cmd_<name>.go) with a runX(ctx, opts) that tests call directly.
// It wires packages together and formats output; it holds no scoring logic.
package cli

import (
	"context"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"
)

// Version is kgjudge's version, written into every summary.
var Version = "0.1.0-dev"

const exitCodesHelp = `EXIT CODES:
   0  success
   1  internal error (a bug, or the store or disk failed)
   2  bad input or usage; every bad file is listed, the good ones are still scored
   3  scored, but some claims were left unjudged (see --allow-unjudged)`

// Main runs the kgjudge command line and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, args)
	if err != nil {
		fmt.Fprintf(stderr, "kgjudge: %v\n", err)
	}
	return exitCodeOf(err)
}

func newApp(stdout, stderr io.Writer) *ucli.App {
	return &ucli.App{
		CustomAppHelpTemplate: ucli.AppHelpTemplate + "\n" + exitCodesHelp + "\n",
		Name:                  "kgjudge",
		Usage:                 "score predicted knowledge graphs against ground-truth graphs (VibeSearchBench method)",
		Version:               Version,
		Description: "kgjudge reads ground-truth task files and a model's predictions, keeps both graphs in a\n" +
			"graph store (embedded Cayley by default), judges which GT triples the prediction entails and\n" +
			"reports the benchmark's triplet and node precision/recall/F1 (avg@N and best@N).",
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		// Errors are printed once by Main; urfave must not exit the process.
		ExitErrHandler: func(*ucli.Context, error) {},
		Commands: []*ucli.Command{
			scoreCommand(),
			structureCommand(),
			cacheCommand(),
			agreeCommand(),
			planCommand(),
			queryCommand(),
			exportCommand(),
			importCommand(),
		},
	}
}

func contextBackground() context.Context { return context.Background() }
