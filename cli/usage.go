package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// usageError is a usage mistake: one line with the hint where the help is,
// exit 2 (urfave/cli would print the whole help and exit 1).
func usageError(path string, format string, args ...any) error {
	return &UserError{Err: fmt.Errorf("%s; see '%s --help'", fmt.Sprintf(format, args...), path)}
}

// hardenUsage makes every usage error of cmds (and their subcommands) a
// usageError: an unknown or malformed flag, a missing required flag (checked
// here instead of by urfave/cli, which prints the full help first), an
// unknown subcommand.
func hardenUsage(cmds []*ucli.Command, parent string) {
	for _, c := range cmds {
		path := parent + " " + c.Name
		var required []string
		for _, f := range c.Flags {
			if sf, ok := f.(*ucli.StringFlag); ok && sf.Required {
				sf.Required = false
				sf.Usage += " (required)"
				required = append(required, sf.Name)
			}
		}
		c.OnUsageError = func(_ *ucli.Context, err error, _ bool) error {
			return usageError(path, "%s: %v", strings.TrimPrefix(path, "kgjudge "), err)
		}
		if len(required) > 0 {
			before := c.Before
			c.Before = func(ctx *ucli.Context) error {
				var missing []string
				for _, n := range required {
					if !ctx.IsSet(n) {
						missing = append(missing, "--"+n)
					}
				}
				if len(missing) > 0 {
					return usageError(path, "%s: missing %s", strings.TrimPrefix(path, "kgjudge "), strings.Join(missing, " and "))
				}
				if before != nil {
					return before(ctx)
				}
				return nil
			}
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = func(ctx *ucli.Context) error {
				if ctx.NArg() > 0 {
					return usageError(path, "%s: unknown subcommand %q", strings.TrimPrefix(path, "kgjudge "), ctx.Args().First())
				}
				return ucli.ShowSubcommandHelp(ctx)
			}
		}
		hardenUsage(c.Subcommands, path)
	}
}

// hardenAppUsage does the same for the app itself: an unknown command or a
// bad global flag.
func hardenAppUsage(app *ucli.App) {
	app.OnUsageError = func(_ *ucli.Context, err error, _ bool) error {
		return usageError(app.Name, "%v", err)
	}
	app.Action = func(ctx *ucli.Context) error {
		if ctx.NArg() > 0 {
			return usageError(app.Name, "unknown command %q", ctx.Args().First())
		}
		return ucli.ShowAppHelp(ctx)
	}
	hardenUsage(app.Commands, app.Name)
}
