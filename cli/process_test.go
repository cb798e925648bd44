package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/matcher"
)

// panicJudge is a judge with a bug.
type panicJudge struct{}

func (panicJudge) Name() string { return "panic" }
func (panicJudge) Judge(_ context.Context, task *kg.Task, _ *kg.Prediction) (matcher.Judgement, error) {
	i := len(task.Triples) + 9999
	return matcher.Judgement{Judge: task.Triples[i].Relation}, nil // index out of range
}

// TestPanicIsABug: a panic in a command, or in one of the scoring workers
// (a goroutine, which no deferred recover of the command reaches), exits 1
// with the message that this is a bug, the panic value and its stack.
func TestPanicIsABug(t *testing.T) {
	for _, tc := range []struct {
		name   string
		action func(c *ucli.Context) error
		want   string
	}{
		{"in the command", func(*ucli.Context) error { panic("command bug") }, "panic: command bug"},
		{"in a worker", func(c *ucli.Context) error {
			_, err := runScore(c.Context, scoreOptions{GT: "../examples/gt", Pred: "../examples/pred", Judge: "offline", Protocol: "paper",
				Store: ":memory:", Out: t.TempDir(), judge: panicJudge{}}, c.App.Writer, c.App.ErrWriter)
			return err
		}, "index out of range [10012] with length 13"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			app := newApp(&stdout, &stderr)
			app.Commands = append(app.Commands, &ucli.Command{Name: "boom", Action: tc.action})
			code := runApp(t.Context(), app, []string{"kgjudge", "boom"}, &stderr)
			if code != ExitInternal {
				t.Errorf("exit %d, want %d", code, ExitInternal)
			}
			for _, want := range []string{"this is a bug", tc.want, "goroutine ", ".go:"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}
