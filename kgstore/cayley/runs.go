package cayley

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/kgjudge/kgjudge/kgstore"
)

// Run metadata: one graph per run, <run:RUN>, whose root is its label.
const (
	tRun = quad.IRI("kg:Run")

	runPrefix = "run:"

	pRunName   = quad.IRI("kg:runName")
	pModel     = quad.IRI("kg:model")
	pFramework = quad.IRI("kg:framework")
	pNotes     = quad.IRI("kg:notes")
	pSource    = quad.IRI("kg:source")
	pSamplesN  = quad.IRI("kg:samplesN")
	pMissing   = quad.IRI("kg:missing")
	pProtocol  = quad.IRI("kg:protocol")
	pManifest  = quad.IRI("kg:manifest")
	pRunTask   = quad.IRI("kg:runTask")
	pScored    = quad.IRI("kg:scored")
)

func runLabel(run string) quad.IRI { return quad.IRI(runPrefix + escape(run)) }

func encodeRun(info kgstore.RunInfo) []quad.Quad {
	root := runLabel(info.Name)
	b := &builder{label: root, root: root}
	b.add(root, pType, tRun)
	b.add(root, pRunName, quad.String(info.Name))
	b.str(root, pModel, info.Model)
	b.str(root, pFramework, info.Framework)
	b.str(root, pSubset, info.Subset)
	b.str(root, pNotes, info.Notes)
	b.str(root, pSource, info.Source)
	b.num(root, pSamplesN, info.Samples)
	b.str(root, pMissing, info.Missing)
	b.str(root, pProtocol, info.Protocol)
	b.str(root, pJudge, info.Judge)
	if info.Manifest != nil {
		b.add(root, pManifest, quad.String(info.Manifest))
	}
	b.strings(root, pRunTask, "task", info.Tasks)
	if !info.Scored.IsZero() {
		b.add(root, pScored, quad.String(info.Scored.UTC().Format(time.RFC3339)))
	}
	return b.quads
}

func decodeRun(g *view, root quad.IRI) (kgstore.RunInfo, error) {
	var info kgstore.RunInfo
	if g.one(root, pType) != tRun {
		return info, kgstore.ErrNotFound
	}
	var e errs
	info.Name = e.s(g.str(root, pRunName))
	info.Model = e.s(g.str(root, pModel))
	info.Framework = e.s(g.str(root, pFramework))
	info.Subset = e.s(g.str(root, pSubset))
	info.Notes = e.s(g.str(root, pNotes))
	info.Source = e.s(g.str(root, pSource))
	info.Samples = e.i(g.num(root, pSamplesN))
	info.Missing = e.s(g.str(root, pMissing))
	info.Protocol = e.s(g.str(root, pProtocol))
	info.Judge = e.s(g.str(root, pJudge))
	if v := g.one(root, pManifest); v != nil {
		info.Manifest = json.RawMessage(e.s(g.str(root, pManifest)))
	}
	scored := e.s(g.str(root, pScored))
	if e.err != nil {
		return info, e.err
	}
	if scored != "" {
		t, err := time.Parse(time.RFC3339, scored)
		if err != nil {
			return info, fmt.Errorf("scored time %q: %w", scored, err)
		}
		info.Scored = t
	}
	var err error
	info.Tasks, err = g.strings(root, pRunTask)
	return info, err
}

// PutRun implements kgstore.Store.
func (s *Store) PutRun(ctx context.Context, info kgstore.RunInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.check(ctx)
	if err == nil {
		var old []quad.Quad
		label := runLabel(info.Name)
		old, err = s.subtree(ctx, label, label)
		if err == nil {
			err = s.replace(ctx, old, encodeRun(info))
		}
	}
	if err != nil {
		return fmt.Errorf("kgstore/cayley: put run %q: %w", info.Name, err)
	}
	return nil
}

// Run implements kgstore.Store.
func (s *Store) Run(ctx context.Context, name string) (kgstore.RunInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	info, err := func() (kgstore.RunInfo, error) {
		if err := s.check(ctx); err != nil {
			return kgstore.RunInfo{}, err
		}
		label := runLabel(name)
		quads, err := s.subtree(ctx, label, label)
		if err != nil {
			return kgstore.RunInfo{}, err
		}
		return decodeRun(newGraph(quads), label)
	}()
	if err != nil {
		return kgstore.RunInfo{}, fmt.Errorf("kgstore/cayley: run %q: %w", name, err)
	}
	return info, nil
}

// sampleQuads are every quad of one sample: its predicted graph and its
// verdict set.
func (s *Store) sampleQuads(ctx context.Context, key kgstore.SampleKey) ([]quad.Quad, error) {
	quads, err := s.graphQuads(ctx, predLabel(key))
	if err != nil {
		return nil, err
	}
	v, err := s.subtree(ctx, verdictLabel(key.Run), verdictRoot(key))
	if err != nil {
		return nil, err
	}
	return append(quads, v...), nil
}

// DeleteSample implements kgstore.Store.
func (s *Store) DeleteSample(ctx context.Context, key kgstore.SampleKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.check(ctx)
	if err == nil {
		var old []quad.Quad
		if old, err = s.sampleQuads(ctx, key); err == nil {
			err = s.replace(ctx, old, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("kgstore/cayley: delete sample %s: %w", keyString(key), err)
	}
	return nil
}

// DeleteRun implements kgstore.Store. Samples are deleted one batch each,
// so a large run never needs all its quads in memory at once; the metadata
// goes last, so an interrupted delete leaves a run that is still listed.
func (s *Store) DeleteRun(ctx context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.deleteRun(ctx, name); err != nil {
		return fmt.Errorf("kgstore/cayley: delete run %q: %w", name, err)
	}
	return nil
}

func (s *Store) deleteRun(ctx context.Context, name string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	// Prediction roots and verdict set roots both carry kg:run "RUN".
	seen := map[kgstore.SampleKey]bool{}
	var keys []kgstore.SampleKey
	err := s.scan(ctx, s.resolver(), quad.Object, quad.String(name), func(q quad.Quad) error {
		iri, ok := q.Subject.(quad.IRI)
		if !ok {
			return nil
		}
		prefix := predPrefix
		if strings.HasPrefix(string(iri), verdictPrefix) {
			prefix = verdictPrefix
		} else if !strings.HasPrefix(string(iri), predPrefix) {
			return nil
		}
		k, err := decodeKeyIRI(iri, prefix)
		if err != nil {
			return err
		}
		if k.Run == name && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		return nil
	}, filter{quad.Predicate, pRun})
	if err != nil {
		return err
	}
	kgstore.SortKeys(keys)
	for _, k := range keys {
		old, err := s.sampleQuads(ctx, k)
		if err != nil {
			return err
		}
		if err := s.replace(ctx, old, nil); err != nil {
			return err
		}
	}
	label := runLabel(name)
	old, err := s.subtree(ctx, label, label)
	if err != nil {
		return err
	}
	return s.replace(ctx, old, nil)
}

// runsWithInfo lists the runs that have metadata (for Runs).
func (s *Store) runsWithInfo(ctx context.Context, r *resolver, fn func(run string)) error {
	return s.scan(ctx, r, quad.Object, tRun, func(q quad.Quad) error {
		parts, err := decodeRoot(q.Subject, runPrefix)
		if err != nil {
			return err
		}
		fn(parts[0])
		return nil
	}, filter{quad.Predicate, pType})
}
