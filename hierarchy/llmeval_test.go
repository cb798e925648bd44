package hierarchy_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/hierarchy/llmclass"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// The LLM pass is measured on the same labels as the rules, with a real
// chat model, where one is reachable (none runs on the CI machines):
//
//	KGJUDGE_CLASSIFY_LLM_URL=https://.../v1 KGJUDGE_CLASSIFY_LLM_MODEL=NAME OPENAI_API_KEY=... \
//	KGJUDGE_CLASSIFY_LLM_RECORD=/tmp/replies.jsonl \
//	go test ./hierarchy -run TestLabelledTriplesLLM -v -timeout 2h
//
// KGJUDGE_CLASSIFY_LLM_RECORD keeps every complete reply in an
// llmclass.Cache file (key: a hash of the model and the messages);
// KGJUDGE_CLASSIFY_LLM_REPLAY=FILE answers from such a file with no
// endpoint, so a measurement can be committed and re-run byte for byte. A
// request the file does not hold leaves its triples unjudged. KGJUDGE_CLASSIFY_LLM_SELECT picks the triples
// asked about (weak, the default; contestable; all).
func TestLabelledTriplesLLM(t *testing.T) {
	url, model, replay := os.Getenv("KGJUDGE_CLASSIFY_LLM_URL"), os.Getenv("KGJUDGE_CLASSIFY_LLM_MODEL"), os.Getenv("KGJUDGE_CLASSIFY_LLM_REPLAY")
	if replay == "" && (url == "" || model == "") {
		t.Skip("no chat model: set KGJUDGE_CLASSIFY_LLM_URL and KGJUDGE_CLASSIFY_LLM_MODEL (and OPENAI_API_KEY), or KGJUDGE_CLASSIFY_LLM_REPLAY")
	}
	seed := 20261205
	pass := &llmclass.Pass{Model: model, Seed: &seed}
	if replay != "" {
		r, err := llmclass.ReadCache(replay)
		if err != nil {
			t.Fatal(err)
		}
		if ms := r.Models(); model == "" && len(ms) == 1 {
			pass.Model = ms[0]
		}
		pass.Cache = r
	} else {
		c := transport.Completer(transport.NewOpenAI(url, os.Getenv("OPENAI_API_KEY"), model, nil))
		c = transport.Timeout{Next: c, D: 3 * time.Minute}
		pass.Completer = &transport.Retry{Next: c}
		if path := os.Getenv("KGJUDGE_CLASSIFY_LLM_RECORD"); path != "" {
			rec, err := llmclass.OpenCache(path)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			pass.Cache = rec
		}
	}
	if name := os.Getenv("KGJUDGE_CLASSIFY_LLM_SELECT"); name != "" {
		sel, err := hierarchy.PassSelection(name)
		if err != nil {
			t.Fatal(err)
		}
		pass.Select = sel
	}
	var total llmclass.Stats
	cls := func(graph, reference []kg.Triple) []hierarchy.Class {
		out, st, err := pass.Classify(context.Background(), graph, reference)
		if err != nil {
			t.Fatal(err)
		}
		total.Add(st)
		cs := make([]hierarchy.Class, len(out))
		for i, c := range out {
			cs[i] = c.Class
		}
		return cs
	}
	figures := hierarchy.LabelFigures(t, cls)
	t.Logf("LLM pass (%s) over every fixture: %d triples, %d selected, sent in %d requests (%d from the cache), %d changed, %d UNJUDGED (kept the rules' class)", pass.Model, total.Triples, total.Selected, total.Requests, total.Cached, total.Changed, total.Unjudged)
	for _, p := range total.Problems {
		t.Log("problem: " + p)
	}
	if total.MoreProblems > 0 {
		t.Logf("... %d more problems", total.MoreProblems)
	}
	for _, f := range figures {
		t.Log(f)
	}
}
