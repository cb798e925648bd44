package runs

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/cayley"
	"github.com/kgjudge/kgjudge/matcher"
)

// blockingJudge answers the first sample, then blocks until its ctx ends
// and answers with every claim unjudged, as an LLM judge cut off mid-call.
type blockingJudge struct {
	matcher.Offline
	started chan struct{}
}

func (b *blockingJudge) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (matcher.Judgement, error) {
	if pred.SampleIdx == 0 && task.ID == "task_e01_Kyoto Weekend" {
		return b.Offline.Judge(ctx, task, pred)
	}
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	j := matcher.Judgement{Judge: "blocking"}
	for i := range task.Triples {
		j.Coverage = append(j.Coverage, kg.Verdict{GTIndex: i, State: kg.Unjudged, Reason: "cancelled"})
	}
	return j, nil
}

type panickingJudge struct{ matcher.Offline }

func (panickingJudge) Judge(context.Context, *kg.Task, *kg.Prediction) (matcher.Judgement, error) {
	panic("judge bug")
}

func examplesStore(t *testing.T) (*Batch, kgstore.Store) {
	t.Helper()
	in, err := LoadBatch(t.Context(), "../examples/gt", "", []RunSpec{{Name: "r", Path: "../examples/pred"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cayley.Open(t.Context(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return in, s
}

// TestScoreCancelled: a cancelled run returns at once with the
// cancellation, commits the sample judged before it, and commits nothing a
// judge answered after it (those claims were left unjudged by the cut, and
// a rerun must judge them), nor writes any output.
func TestScoreCancelled(t *testing.T) {
	in, store := examplesStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	j := &blockingJudge{started: make(chan struct{}, 1)}
	done := make(chan error, 1)
	out := t.TempDir()
	committed := make(chan struct{}, 8)
	go func() {
		_, err := Score(ctx, in, ScoreConfig{Protocol: matcher.ProtocolPaper, Judge: j, Store: store, Out: out, Workers: 2,
			Progress: func(int, int, string, int) { committed <- struct{}{} }})
		done <- err
	}()
	<-committed // sample 0
	<-j.started // sample 1 is being judged
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Score: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Score did not return 5 s after its ctx was cancelled")
	}
	if _, err := store.Verdicts(t.Context(), kgstore.SampleKey{Run: "r", TaskID: "task_e01_Kyoto Weekend", Sample: 0}); err != nil {
		t.Errorf("the sample judged before the cancellation was not committed: %v", err)
	}
	for _, k := range []kgstore.SampleKey{{Run: "r", TaskID: "task_e01_Kyoto Weekend", Sample: 1}, {Run: "r", TaskID: "task_e02_咖啡豆选购", Sample: 0}} {
		if _, err := store.Verdicts(t.Context(), k); !errors.Is(err, kgstore.ErrNotFound) {
			t.Errorf("%v: verdicts committed after the cancellation (%v)", k, err)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a cancelled run wrote %d output entries", len(entries))
	}
}

// TestScoreWorkerPanic: a panic in a worker comes back as a *PanicError with
// its stack instead of ending the process.
func TestScoreWorkerPanic(t *testing.T) {
	in, store := examplesStore(t)
	_, err := Score(t.Context(), in, ScoreConfig{Protocol: matcher.ProtocolPaper, Judge: panickingJudge{}, Store: store, Out: t.TempDir(), Workers: 2})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "judge bug" || !strings.Contains(string(pe.Stack), "panickingJudge") {
		t.Fatalf("Score: %v, want a *PanicError with the judge's stack", err)
	}
}
