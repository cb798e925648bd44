// Package cli is how a person asks kgjudge for something: one file per
// subcommand (cmd_<name>.go) with a runX(ctx, opts) that tests call directly.
// It wires packages together and formats output; it holds no scoring logic.
package cli

import (
	"context"
	"io"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// Version is kgjudge's version, written into every summary.
var Version = "0.1.0-dev"

const exitCodesHelp = `EXIT CODES:
     0  success
     1  internal error (a bug, or the store or disk failed)
     2  bad input or usage; every bad file is listed, the good ones are still scored
     3  scored, but some claims were left unjudged (see --allow-unjudged)
   130  stopped by SIGINT (Ctrl-C), within 2 s; rerun the same command to resume
   143  stopped by SIGTERM, within 2 s; rerun the same command to resume
     4  diff --fail-if-drop: B is worse than A by more than X and the 95% interval excludes 0`

// Main runs the kgjudge command line and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	return runApp(ctx, app, interspersed(app, args), stderr)
}

func newApp(stdout, stderr io.Writer) *ucli.App {
	app := &ucli.App{
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
		// --pred values are paths, which may hold commas.
		DisableSliceFlagSeparator: true,
		// Errors are printed once by Main; urfave must not exit the process.
		ExitErrHandler: func(*ucli.Context, error) {},
		Commands: []*ucli.Command{
			scoreCommand(),
			structureCommand(),
			cacheCommand(),
			agreeCommand(),
			calibrateCommand(),
			planCommand(),
			queryCommand(),
			exportCommand(),
			importCommand(),
			reportCommand(),
			runsCommand(),
			leaderboardCommand(),
			diffCommand(),
			mergeCommand(),
		},
	}
	hardenAppUsage(app)
	return app
}

// interspersed moves a command's flags before its positional arguments:
// urfave/cli stops parsing flags at the first argument, so without this
// `kgjudge agree A B --store DIR` would read --store as a run name.
func interspersed(app *ucli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	// Find the command (one level of subcommands: `runs show RUN --store DIR`).
	find := func(cmds []*ucli.Command, name string) *ucli.Command {
		for _, c := range cmds {
			if c.Name == name || slices.Contains(c.Aliases, name) {
				return c
			}
		}
		return nil
	}
	cmd := find(app.Commands, args[1])
	if cmd != nil && len(cmd.Subcommands) > 0 {
		sub := find(cmd.Subcommands, args[2])
		if sub == nil || len(sub.Subcommands) > 0 {
			return args
		}
		inner := interspersed(&ucli.App{Commands: []*ucli.Command{sub}}, append([]string{args[0]}, args[2:]...))
		return append([]string{args[0], args[1]}, inner[1:]...)
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		default:
			pos = append(pos, a)
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(pos) > 0 {
		out = append(append(out, "--"), pos...)
	}
	return out
}
