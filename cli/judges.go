package cli

import (
	"context"
	"errors"

	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/matcher"
)

// newJudge builds the judge named by --judge.
func newJudge(ctx context.Context, o scoreOptions, taskIDs []string, mapping map[string]string) (matcher.Judge, error) {
	if o.judge != nil {
		return o.judge, nil
	}
	switch o.Judge {
	case "offline":
		return matcher.Offline{}, nil
	case "replay":
		src := o.Verdicts
		if src == "" {
			src = o.Pred
		}
		evals, err := ingest.ReadEvals(ctx, src)
		if err != nil {
			// A replay with some unreadable records would silently score
			// fewer samples: refuse it whole.
			var fe *ingest.FileErrors
			if errors.As(err, &fe) || ingest.IsInputError(err) {
				return nil, &UserError{Err: err}
			}
			return nil, err
		}
		if len(evals) == 0 {
			return nil, userErrorf("--judge replay: no recorded verdicts found in %s (expected reference eval outputs or trajectory lines ending with coverage_details)", src)
		}
		r, err := matcher.NewReplay(evals, taskIDs, mapping)
		if err != nil {
			return nil, &UserError{Err: err}
		}
		return r, nil
	}
	return nil, userErrorf("--judge: unknown judge %q", o.Judge)
}
