package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/ingest"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/matcher/calibrate"
	"github.com/kgjudge/kgjudge/matcher/calibrated"
	"github.com/kgjudge/kgjudge/matcher/prefilter"
)

// newJudge builds the judge named by --judge. The returned close func is
// never nil.
// A replay judge reads its verdicts from src.
func newJudge(ctx context.Context, o scoreOptions, src string, taskIDs []string, mapping map[string]string) (matcher.Judge, func() error, error) {
	nop := func() error { return nil }
	if o.judge != nil {
		return o.judge, nop, nil
	}
	switch o.Judge {
	case "offline":
		ua, err := loadAliases(o.Aliases)
		if err != nil {
			return nil, nop, err
		}
		off := matcher.Offline{Concepts: ua.concepts, Aliases: ua.sets}
		if o.Model != "" {
			m, err := calibrate.Load(o.Model)
			if err != nil {
				return nil, nop, &UserError{Err: fmt.Errorf("--offline-model: %w", err)}
			}
			off.Model = m
		}
		if o.embedder != nil {
			off.Embedder = o.embedder
		}
		if ua.scope != nil {
			return scopedOffline{off: off, scope: ua.scope}, nop, nil
		}
		return off, nop, nil
	case "replay":
		evals := o.replayEvals
		if evals == nil || src != o.Verdicts {
			var err error
			if evals, err = readEvals(ctx, src); err != nil {
				return nil, nop, err
			}
		}
		r, err := matcher.NewReplay(evals, taskIDs, mapping)
		if err != nil {
			return nil, nop, &UserError{Err: err}
		}
		return r, nop, nil
	case "openai":
		var err error
		cfg := llmjudgeConfig(o)
		if cfg.Batching == llmjudge.BatchingPrefilter {
			var ua userAliases
			ua, err = loadAliases(o.Aliases)
			if err != nil {
				return nil, nop, err
			}
			cfg.Planner = prefilter.Planner{Options: prefilter.Options{Concepts: ua.concepts, Aliases: ua.sets}}
			if o.Aliases != "" {
				b, rerr := os.ReadFile(o.Aliases)
				if rerr != nil {
					return nil, nop, &UserError{Err: fmt.Errorf("--aliases: %w", rerr)}
				}
				sum := sha256.Sum256(b)
				cfg.PlanKey = "aliases " + hex.EncodeToString(sum[:])
			}
		}
		if cfg.Route, err = newRouting(ctx, o); err != nil {
			return nil, nop, err
		}
		j, err := llmjudge.New(ctx, cfg)
		if err != nil {
			// Configuration the user gave: model, URL, cache directory.
			return nil, nop, &UserError{Err: err}
		}
		return j, j.Close, nil
	}
	return nil, nop, userErrorf("--judge: unknown judge %q", o.Judge)
}

// userAliases is an --aliases file, ready for the matchers (nil: none).
type userAliases struct {
	concepts *alias.Concepts
	sets     [][]string
	// scope picks the entries relevant to a sample (the offline judge's).
	scope *aliasScope
}

// scopedOffline is the offline judge given, per sample, only the alias
// sets of the --aliases file relevant to the sample (aliasScope): the
// others cannot match, but as Bleve documents they would still move its
// scores, and the rescore memo keys a sample by its relevant entries
// alone. The concept table stays whole: a term that is not relevant
// matches none of the sample's strings.
type scopedOffline struct {
	off   matcher.Offline
	scope *aliasScope
}

// Name implements matcher.Judge.
func (s scopedOffline) Name() string { return s.off.Name() }

// Judge implements matcher.Judge.
func (s scopedOffline) Judge(ctx context.Context, task *kg.Task, pred *kg.Prediction) (matcher.Judgement, error) {
	o := s.off
	o.Aliases = s.scope.relevantSets(task, pred)
	return o.Judge(ctx, task, pred)
}

func loadAliases(path string) (userAliases, error) {
	if path == "" {
		return userAliases{}, nil
	}
	ua, err := alias.LoadAliasFile(path)
	if err != nil {
		return userAliases{}, &UserError{Err: fmt.Errorf("--aliases: %w", err)}
	}
	return userAliases{concepts: alias.BuiltinConcepts().With(ua.Concepts), sets: ua.Sets, scope: newAliasScope(ua)}, nil
}

func llmjudgeConfig(o scoreOptions) llmjudge.Config {
	cfg := llmjudge.ConfigFromEnv()
	if o.JudgeURL != "" {
		cfg.BaseURL = o.JudgeURL
	}
	if o.JudgeModel != "" {
		cfg.Model = o.JudgeModel
	}
	if o.Store != ":memory:" {
		cfg.CacheDir = filepath.Join(o.Store, "judge-cache")
	}
	cfg.NoCache, cfg.CacheOnly = o.NoCache, o.CacheOnly
	cfg.TokenBudget = o.MaxTokens
	cfg.PriceIn, cfg.PriceOut, cfg.PriceCachedIn = o.PriceIn, o.PriceOut, o.PriceCached
	cfg.Concurrency = o.Concurrency
	cfg.Timeout, cfg.MaxAttempts = o.Timeout, o.Attempts
	cfg.RPM, cfg.TPM = o.RPM, o.TPM
	cfg.Batching = o.Batching
	return cfg
}

// readReplay reads the recorded verdicts of --judge replay.
func readReplay(ctx context.Context, o scoreOptions) ([]ingest.Eval, error) {
	src := o.Verdicts
	evals, err := readEvals(ctx, src)
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		return nil, userErrorf("--judge replay: no recorded verdicts found in %s (expected reference eval outputs or trajectory lines ending with coverage_details)", src)
	}
	return evals, nil
}

// readEvals reads recorded verdicts. A replay with some unreadable records
// would silently score fewer samples: it is refused whole.
func readEvals(ctx context.Context, src string) ([]ingest.Eval, error) {
	evals, err := ingest.ReadEvals(ctx, src)
	if err != nil {
		var fe *ingest.FileErrors
		if errors.As(err, &fe) || ingest.IsInputError(err) {
			return nil, &UserError{Err: err}
		}
		return nil, err
	}
	return evals, nil
}

// replayPairs names the task of a lone prediction file from the lone eval
// record it is replayed with: `--pred p012/pred.json --verdicts
// p012/eval.json` scores task_012 (the file's own name, "pred", is no task
// id). Anything else is left to the ids, file names and --map.
func replayPairs(pred string, evals []ingest.Eval) map[string]string {
	if len(evals) != 1 || evals[0].QID == "" {
		return nil
	}
	fi, err := os.Stat(pred)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	base := filepath.Base(pred)
	return map[string]string{strings.TrimSuffix(base, filepath.Ext(base)): evals[0].QID}
}

// newRouter builds the llmjudge.Router a --route name stands for, and the
// routing it brings when --route-low/--route-high are not given (nil: the
// flags' values). "calibrated" is the calibrated offline judge
// (matcher/calibrated): by default its model's cross-validated thresholds
// per pass; with either flag its raw probability against the flags.
func newRouter(ctx context.Context, name string, o scoreOptions) (llmjudge.Router, *llmjudge.Routing, error) {
	_ = ctx
	switch name {
	case "calibrated":
		ua, err := loadAliases(o.Aliases)
		if err != nil {
			return nil, nil, err
		}
		var m *calibrate.Model
		if o.Model != "" {
			if m, err = calibrate.Load(o.Model); err != nil {
				return nil, nil, &UserError{Err: fmt.Errorf("--offline-model: %w", err)}
			}
		}
		opt := calibrate.Options{Concepts: ua.concepts, Aliases: ua.sets}
		if o.embedder != nil {
			opt.Embedder = o.embedder
		}
		r, err := calibrated.New(m, opt, o.RouteSet)
		if err != nil {
			return nil, nil, err
		}
		if o.RouteSet {
			return r, nil, nil
		}
		return r, r.Routing(), nil
	}
	return nil, nil, userErrorf("--route: unknown router %q (available: %s)", name, strings.Join(routerNames(), ", "))
}

func routerNames() []string { return []string{"off", "calibrated"} }

// newRouting builds --route's routing, nil for "off".
func newRouting(ctx context.Context, o scoreOptions) (*llmjudge.Routing, error) {
	if o.Route == "" || o.Route == "off" {
		return nil, nil
	}
	r, own, err := newRouter(ctx, o.Route, o)
	if err != nil {
		return nil, err
	}
	if own != nil {
		return own, nil
	}
	rt := &llmjudge.Routing{Router: r, Low: o.RouteLow, High: o.RouteHigh}
	if err := rt.Validate(); err != nil {
		return nil, &UserError{Err: err}
	}
	return rt, nil
}
