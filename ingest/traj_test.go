package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

// trajLine builds one trajectory line whose messages take about size bytes.
func trajLine(tb testing.TB, qid string, sample int, response string, size int, evalKeys string) []byte {
	tb.Helper()
	chunk := strings.Repeat("search result text, 搜索结果 \"quoted\" \\ ", 64)
	var msgs []map[string]string
	total := 0
	for total < size {
		msgs = append(msgs, map[string]string{"role": "tool", "content": chunk})
		total += len(chunk) + 32
	}
	m, err := json.Marshal(msgs)
	if err != nil {
		tb.Fatal(err)
	}
	q, _ := json.Marshal(qid)
	r, _ := json.Marshal(response)
	var b bytes.Buffer
	b.WriteString(`{"qid": ` + string(q) + `, "sample_idx": `)
	b.WriteString(strings.TrimSpace(string(mustJSON(tb, sample))))
	b.WriteString(`, "question": "q", "messages": `)
	b.Write(m)
	b.WriteString(`, "response": ` + string(r) + `, "termination": "answer", "token_usage": {"in": 1}`)
	b.WriteString(evalKeys)
	b.WriteString("}\n")
	return b.Bytes()
}

func mustJSON(tb testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

const fencedResponse = "Here it is:\n```json\n[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}, {\"head\": \"B\", \"relation\": \"s\", \"tail\": 7}]\n```"

func TestTrajectoryJSONL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "task_038_Game Selection.jsonl")
	var data []byte
	data = append(data, trajLine(t, "task_038_Game Selection", 0, fencedResponse, 2<<20, "")...)
	data = append(data, trajLine(t, "task_038_Game Selection", 1, "no graph today", 1<<20, "")...)
	data = append(data, trajLine(t, "task_038_Game Selection", 2, "[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}, {\"head\"", 1000, "")...)
	if len(data) < 3<<20 {
		t.Fatalf("test data too small: %d", len(data))
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	preds, err := ReadPredictions(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		sample int
		n      int
		status kg.ParseStatus
	}{{0, 2, kg.ParseClean}, {1, 0, kg.ParseMalformed}, {2, 1, kg.ParseTruncated}}
	if len(preds) != len(want) {
		t.Fatalf("%d predictions, want %d", len(preds), len(want))
	}
	for i, w := range want {
		p := preds[i]
		if p.QID != "task_038_Game Selection" || p.SampleIdx != w.sample || len(p.Triples) != w.n || p.Report.Status != w.status {
			t.Errorf("line %d: qid %q sample %d, %d triples, %q; want sample %d, %d, %q", i+1, p.QID, p.SampleIdx, len(p.Triples), p.Report.Status, w.sample, w.n, w.status)
		}
		if !strings.HasSuffix(p.Source, "line "+string(rune('1'+i))) {
			t.Errorf("source %q lacks the line", p.Source)
		}
	}
	if preds[0].Triples[1] != tr("B", "s", "7") || preds[0].Report.Stringified != 1 {
		t.Errorf("sample 0: %v %+v", preds[0].Triples, preds[0].Report)
	}
}

func TestTrajectoryLineErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "012.jsonl")
	var data []byte
	data = append(data, trajLine(t, "012", 0, fencedResponse, 100<<10, "")...)
	data = append(data, []byte(`{"qid": "012", "sample_idx": 1, "messages": []}`+"\n")...)
	data = append(data, trajLine(t, "012", 2, fencedResponse, 100<<10, "")[:50<<10]...) // cut off
	data = append(data, '\n')
	data = append(data, trajLine(t, "012", 3, fencedResponse, 10, "")...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	preds, err := ReadPredictions(context.Background(), path)
	var fe *FileErrors
	if !errors.As(err, &fe) || len(fe.Errs) != 2 {
		t.Fatalf("want 2 collected errors, got %v", err)
	}
	for i, want := range []string{"012.jsonl line 2: missing \"response\"", "012.jsonl line 3: invalid JSON"} {
		if !strings.Contains(fe.Errs[i].Error(), want) {
			t.Errorf("error %d %q lacks %q", i, fe.Errs[i], want)
		}
		var ie *InputError
		if !errors.As(fe.Errs[i], &ie) || ie.Line != i+2 {
			t.Errorf("error %d is not an *InputError at line %d: %#v", i, i+2, fe.Errs[i])
		}
	}
	if len(preds) != 2 || preds[0].SampleIdx != 0 || preds[1].SampleIdx != 3 {
		t.Fatalf("good lines not returned: %d", len(preds))
	}
	if !IsInputError(err) {
		t.Error("IsInputError false")
	}
}

func TestReadLineLong(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 3<<20)
	in := append(append([]byte{}, long...), "\r\nshort\nlast"...)
	br := bufio.NewReaderSize(bytes.NewReader(in), 4096)
	var buf []byte
	var got []int
	for {
		var err error
		buf, err = readLine(br, buf)
		if err != nil {
			break
		}
		got = append(got, len(buf))
	}
	if len(got) != 3 || got[0] != len(long) || got[1] != 5 || got[2] != 4 {
		t.Fatalf("line lengths %v", got)
	}
}

func TestEvalFromTrajectory(t *testing.T) {
	dir := t.TempDir()
	eval, err := os.ReadFile(fixture("p012", "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The eval keys appended to a trajectory line, without qid/sample_idx.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(eval, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "qid")
	delete(m, "sample_idx")
	tail := mustJSON(t, m)
	line := trajLine(t, "task_012", 4, fencedResponse, 200<<10, ", "+string(tail[1:len(tail)-1]))
	path := filepath.Join(dir, "012.jsonl")
	if err := os.WriteFile(path, append(line, trajLine(t, "task_012", 5, fencedResponse, 10, "")...), 0o644); err != nil {
		t.Fatal(err)
	}
	evs, err := ReadEvals(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].QID != "task_012" || evs[0].SampleIdx != 4 || evs[0].NumPredTriples != 307 || evs[0].TripletF1 != 0.1728 {
		t.Fatalf("evals %d: %+v", len(evs), evs)
	}
	// The trajectory line still reads as a prediction.
	preds, err := ReadPredictions(context.Background(), path)
	if err != nil || len(preds) != 2 || len(preds[0].Triples) != 2 {
		t.Fatalf("preds %d, %v", len(preds), err)
	}
}

func BenchmarkTrajectoryLine(b *testing.B) {
	line := trajLine(b, "task_012", 0, fencedResponse, 2<<20, "")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		preds, err := DecodeJSONL(context.Background(), bufio.NewReader(bytes.NewReader(line)), "bench.jsonl")
		if err != nil || len(preds) != 1 || len(preds[0].Triples) != 2 {
			b.Fatal(err, len(preds))
		}
	}
}
