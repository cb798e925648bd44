package cli

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/kgjudge/kgjudge/kgstore/neo4j"
)

func TestScoreNeo4jThenExportChangesNothing(t *testing.T) {
	o := testNeo4j(t)
	gt, pred, verdicts, published := fixtureLayout(t)
	store := filepath.Join(t.TempDir(), "store")
	var stdout, stderr bytes.Buffer
	res, err := runScore(t.Context(), scoreOptions{
		GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
		Store: store, Out: t.TempDir(), Run: "opus", Neo4j: true, Neo4jConn: o,
	}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("score --neo4j: %v\n%s", err, stderr.String())
	}
	if len(res.Items) != 3 {
		t.Fatalf("%d items", len(res.Items))
	}
	// Synced as scored: the metrics on the Sample nodes are the published ones.
	rows := queryJSON(t, o, queryOptions{Cypher: `
MATCH (:Run {ns: $ns, name: 'opus'})<-[:OF_RUN]-(s:Sample)
RETURN s.task AS task, s.triplet_f1 AS f1, s.node_f1 AS node_f1, s.protocol AS protocol, s.judge AS judge ORDER BY task`})
	if len(rows) != 3 {
		t.Fatalf("rows = %v", rows)
	}
	for _, r := range rows {
		want := published[r["task"].(string)]
		if r["f1"] != want["triplet_f1"] || r["node_f1"] != want["node_f1"] || r["protocol"] != "paper" || r["judge"] != "replay" {
			t.Errorf("%v, want F1 %v node F1 %v", r, want["triplet_f1"], want["node_f1"])
		}
	}
	checkCoveredCounts(t, o, "opus", false)

	// Exporting the embedded store finds everything already there.
	st, err := runExport(t.Context(), exportOptions{Store: store, Protocol: "paper", Neo4j: o}, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if st.Triples != 0 || st.Tasks+st.Predictions+st.VerdictSets != 0 || st.Unchanged != 9 {
		t.Errorf("export after score --neo4j: %+v, want 9 graphs unchanged and nothing written", st)
	}
}

func TestExportNeo4j(t *testing.T) {
	o := testNeo4j(t)
	gt, pred, verdicts, _ := fixtureLayout(t)
	store := filepath.Join(t.TempDir(), "store")
	var stdout, stderr bytes.Buffer
	if _, err := runScore(t.Context(), scoreOptions{
		GT: gt, Pred: pred, Judge: "replay", Verdicts: verdicts, Protocol: "paper",
		Store: store, Out: t.TempDir(), Run: "opus",
	}, &stdout, &stderr); err != nil {
		t.Fatalf("score: %v\n%s", err, stderr.String())
	}
	// Through the command line, as a user runs it.
	code, out, errOut := runCLI(t, []string{"export", "neo4j", "--store", store, "--neo4j-uri", o.URI, "--neo4j-namespace", o.Namespace})
	if code != ExitOK {
		t.Fatalf("export exit %d: %s", code, errOut)
	}
	if !bytes.Contains([]byte(out), []byte("3 tasks, 3 predictions, 3 verdict sets")) {
		t.Errorf("export output: %s", out)
	}
	checkCoveredCounts(t, o, "opus", false)

	st, err := runExport(t.Context(), exportOptions{Store: store, Protocol: "paper", Neo4j: o}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if st != (neo4j.Stats{Unchanged: 9, Transactions: st.Transactions}) {
		t.Errorf("second export: %+v, want 9 graphs unchanged", st)
	}
	for _, args := range [][]string{{"export"}, {"export", "cayley"}, {"export", "neo4j", "--store", ":memory:", "--neo4j-uri", o.URI}, {"export", "neo4j", "extra"}} {
		if code, _, _ := runCLI(t, args); code != ExitInput {
			t.Errorf("%v: exit %d, want %d", args, code, ExitInput)
		}
	}
}
