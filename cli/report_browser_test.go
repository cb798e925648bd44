package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// artifactDir is where the browser tests leave their screenshots:
// $KGJUDGE_ARTIFACTS, else kgjudge-out/test-artifacts/report at the
// repository root (ignored by git; CI keeps it with the run's logs).
func artifactDir(t *testing.T) string {
	dir := os.Getenv("KGJUDGE_ARTIFACTS")
	if dir == "" {
		_, file, _, _ := goruntime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "kgjudge-out", "test-artifacts")
	}
	dir = filepath.Join(dir, "report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// chromium finds Debian's chromium; without it the browser tests skip
// locally and fail in CI (.ci/run installs it).
func chromium(t *testing.T) string {
	for _, p := range []string{os.Getenv("KGJUDGE_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found: .ci/run installs Debian's chromium for the browser tests")
	}
	t.Skip("chromium not installed (apt-get install chromium); the browser tests need it")
	return ""
}

// browser is a headless Chromium with the network off: every request that
// is not the report file itself (or data:/blob:) is recorded as a failure,
// as are console errors and uncaught exceptions.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T) *browser {
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("proxy-server", "127.0.0.1:9"), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1600, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				b.problems = append(b.problems, "console error: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Error())
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
				b.problems = append(b.problems, "network request: "+u)
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), runtime.Enable(),
		network.EmulateNetworkConditions(true, 0, 0, 0)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		t.Fatalf("%s: %v (browser problems so far: %q)", what, err, b.problems)
	}
}

func (b *browser) check(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Error(p)
	}
}

func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	var png []byte
	b.run(t, "screenshot "+name, chromedp.CaptureScreenshot(&png))
	if err := os.WriteFile(filepath.Join(artifactDir(t), name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// scoredRuns scores the old fixtures twice into one store, with the
// recorded verdicts (run "recorded") and the offline judge (run "offline"),
// and returns the store and the two output directories.
func scoredRuns(t *testing.T) (store string, outs []string) {
	gt, pred, verdicts, _ := fixtureLayout(t)
	store = filepath.Join(t.TempDir(), "store")
	root := t.TempDir()
	for _, r := range []struct{ run, judge string }{{"recorded", "replay"}, {"offline", "offline"}} {
		out := filepath.Join(root, r.run)
		o := scoreOptions{GT: gt, Pred: pred, Judge: r.judge, Protocol: "paper", Store: store, Out: root, Run: r.run, Workers: 2}
		if r.judge == "replay" {
			o.Verdicts = verdicts
		}
		if _, err := runScore(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatalf("score %s: %v", r.run, err)
		}
		outs = append(outs, out)
	}
	return store, outs
}

func readSummary(t *testing.T, dir string) map[string]any {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReportInBrowser opens the report of two scored runs in headless
// Chromium, from disk, with the network off, and checks what a reader sees:
// the overview's numbers equal summary.json's; a task's drill-down shows a
// GT triple's supporting predicted triples; side by side highlights the
// claims whose verdicts differ; no console error, no network request.
func TestReportInBrowser(t *testing.T) {
	b := newBrowser(t)
	store, outs := scoredRuns(t)
	html := filepath.Join(t.TempDir(), "report.html")
	in, err := runReport(t.Context(), reportOptions{Store: store, HTML: html, Title: "fixtures"}, outs, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + html

	// Overview: every run's avg@N and best@N as in summary.json.
	b.run(t, "open overview", chromedp.Navigate(url), chromedp.WaitVisible(`#runs-table`, chromedp.ByQuery))
	for _, dir := range outs {
		sum := readSummary(t, dir)
		run := sum["run"].(string)
		n := int(sum["num_samples"].(float64))
		for _, k := range []string{"triplet_precision", "triplet_recall", "triplet_f1", "node_f1"} {
			var got string
			sel := fmt.Sprintf(`#runs-table tr[data-run=%q] td[data-metric="avg.%s"]`, run, k)
			b.run(t, "read "+sel, chromedp.Text(sel, &got, chromedp.ByQuery))
			want := strconv.FormatFloat(sum[fmt.Sprintf("avg@%d_%s", n, k)].(float64), 'f', 4, 64)
			if got != want {
				t.Errorf("overview %s avg %s = %q, summary.json %s", run, k, got, want)
			}
		}
		var best string
		b.run(t, "read best", chromedp.Text(fmt.Sprintf(`#runs-table tr[data-run=%q] td[data-metric="best.triplet_f1"]`, run), &best, chromedp.ByQuery))
		if want := strconv.FormatFloat(sum[fmt.Sprintf("best@%d_triplet_f1", n)].(float64), 'f', 4, 64); best != want {
			t.Errorf("overview %s best F1 = %q, summary.json %s", run, best, want)
		}
	}
	b.screenshot(t, "overview.png")

	// Tasks table, then the drill-down of the first task of the recorded run.
	var rows int
	b.run(t, "tasks", chromedp.Navigate(url+"#/tasks"), chromedp.WaitVisible(`#tasks-table`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#tasks-table tbody tr').length`, &rows))
	if rows != len(in.Tasks) {
		t.Errorf("tasks table has %d rows, want %d", rows, len(in.Tasks))
	}
	// The first GT triple the recorded judge covered, and its support text.
	rec := in.Runs[0].Samples[0]
	gi := -1
	for _, g := range rec.Item.Coverage.PerGTTriple {
		if g.Covered && len(g.SupportingPredIndices) > 0 {
			gi = g.GTIndex
			break
		}
	}
	if gi < 0 {
		t.Fatal("no covered GT triple in the first recorded sample")
	}
	taskIdx := -1
	for i, task := range in.Tasks {
		if task.ID == rec.Item.QID {
			taskIdx = i
		}
	}
	var supports []string
	b.run(t, "drill down", chromedp.Navigate(fmt.Sprintf("%s#/task/%d/recorded/0", url, taskIdx)),
		chromedp.WaitVisible(`#gt-list`, chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`#gt-list tr[data-gt="%d"]`, gi), chromedp.ByQuery),
		chromedp.WaitVisible(`#support-list`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#support-list li')).map(e => e.textContent)`, &supports))
	pred := rec.Item.Validity.PerPredTriple
	want := rec.Item.Coverage.PerGTTriple[gi].SupportingPredIndices
	if len(supports) != len(want) {
		t.Fatalf("support list %q, want %d entries", supports, len(want))
	}
	for i, k := range want {
		if !strings.Contains(supports[i], pred[k].PredTriple.String()) {
			t.Errorf("support %d = %q, want the text of predicted triple %d: %s", i, supports[i], k, pred[k].PredTriple)
		}
	}
	b.screenshot(t, "drilldown.png")

	// Side by side: the highlighted claims are exactly those whose coverage
	// state differs between the runs.
	off := in.Runs[1].Samples[0]
	var wantDiff []string
	for i := range rec.Item.Coverage.PerGTTriple {
		if rec.Item.Coverage.PerGTTriple[i].State != off.Item.Coverage.PerGTTriple[i].State {
			wantDiff = append(wantDiff, strconv.Itoa(i))
		}
	}
	var gotDiff []string
	b.run(t, "side by side", chromedp.Navigate(fmt.Sprintf("%s#/cmp/%d/recorded/offline/0", url, taskIdx)),
		chromedp.WaitVisible(`#diff-list`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#diff-list tbody tr.diff')).map(e => e.dataset.gt)`, &gotDiff))
	if strings.Join(gotDiff, ",") != strings.Join(wantDiff, ",") || len(wantDiff) == 0 {
		t.Errorf("highlighted claims %v, want %v", gotDiff, wantDiff)
	}
	var edges int
	b.run(t, "diff edges", chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(`document.querySelectorAll('#graph-a canvas').length`, &edges))
	if edges == 0 {
		t.Error("side-by-side view drew no graph")
	}
	b.screenshot(t, "side-by-side.png")
	b.check(t)
}

// TestReportDeterministic: the same runs give the same bytes, in HTML and
// Markdown.
func TestReportDeterministic(t *testing.T) {
	store, outs := scoredRuns(t)
	var files [2][2][]byte
	for i := range files {
		dir := t.TempDir()
		h, m := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.md")
		if _, err := runReport(t.Context(), reportOptions{Store: store, HTML: h, MD: m, Title: "t"}, outs, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		files[i][0], _ = os.ReadFile(h)
		files[i][1], _ = os.ReadFile(m)
	}
	if !bytes.Equal(files[0][0], files[1][0]) || !bytes.Equal(files[0][1], files[1][1]) {
		t.Error("two reports of the same runs differ")
	}
	if !bytes.Contains(files[0][1], []byte("| recorded |")) {
		t.Errorf("markdown lacks the runs table:\n%s", files[0][1])
	}
}
