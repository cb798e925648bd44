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

	"github.com/kgjudge/kgjudge/matcher"
	"github.com/kgjudge/kgjudge/report"
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
	// Not t.TempDir: Chromium's helper processes can still be writing the
	// profile for a moment after the browser exits, and t.TempDir's removal
	// then fails the test ("unlinkat .../Default: directory not empty").
	profile, err := os.MkdirTemp("", "kgjudge-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("proxy-server", "127.0.0.1:9"), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1600, 1000),
		// chromedp waits 20 s for the DevTools URL by default; the first
		// launch on a fresh machine (font cache, profile) while the other
		// packages' tests load both cores took longer than that once.
		chromedp.WSURLReadTimeout(2 * time.Minute),
	}
	actx, cancelA := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelC()
		cancelA()
		var err error
		for range 50 {
			if err = os.RemoveAll(profile); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("leaving the Chromium profile %s: %v", profile, err)
	})
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

// texts reads the text of each selector's first match in one round trip
// ("<none>" where nothing matches).
func (b *browser) texts(t *testing.T, sels []string) []string {
	t.Helper()
	js, _ := json.Marshal(sels)
	var out []string
	b.run(t, "read cells", chromedp.Evaluate(fmt.Sprintf(`%s.map(s => { const e = document.querySelector(s); return e ? e.textContent : '<none>'; })`, js), &out))
	return out
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
func scoredRuns(t *testing.T) (store, gt string, outs []string) {
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
	return store, gt, outs
}

// loadSample is a report sample's item, read from its file as the report
// reads it.
func loadSample(t *testing.T, s report.Sample) *matcher.Item {
	t.Helper()
	if s.Item != nil {
		return s.Item
	}
	it, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	return it
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
	store, gt, outs := scoredRuns(t)
	html := filepath.Join(t.TempDir(), "report.html")
	in, err := runReport(t.Context(), reportOptions{Store: store, GT: gt, HTML: html, Title: "fixtures"}, outs, &bytes.Buffer{})
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
	checkLeaderboards(t, b, gt, outs, len(in.ModelBySubset.Rows))
	checkConsistency(t, b, store)
	b.screenshot(t, "overview.png")

	// Tasks table, then the drill-down of the first task of the recorded run.
	var rows int
	b.run(t, "tasks", chromedp.Navigate(url+"#/tasks"), chromedp.WaitVisible(`#tasks-table`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#tasks-table tbody tr').length`, &rows))
	if rows != len(in.Tasks) {
		t.Errorf("tasks table has %d rows, want %d", rows, len(in.Tasks))
	}
	// The first GT triple the recorded judge covered, and its support text.
	rec := loadSample(t, in.Runs[0].Samples[0])
	gi := -1
	for _, g := range rec.Coverage.PerGTTriple {
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
		if task.ID == rec.QID {
			taskIdx = i
		}
	}
	var supports []string
	b.run(t, "drill down", chromedp.Navigate(fmt.Sprintf("%s#/task/%d/recorded/0", url, taskIdx)),
		chromedp.WaitVisible(`#gt-list`, chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`#gt-list tr[data-gt="%d"]`, gi), chromedp.ByQuery),
		chromedp.WaitVisible(`#support-list`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#support-list li')).map(e => e.textContent)`, &supports))
	pred := rec.Validity.PerPredTriple
	want := rec.Coverage.PerGTTriple[gi].SupportingPredIndices
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
	off := loadSample(t, in.Runs[1].Samples[0])
	var wantDiff []string
	for i := range rec.Coverage.PerGTTriple {
		if rec.Coverage.PerGTTriple[i].State != off.Coverage.PerGTTriple[i].State {
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
	store, _, outs := scoredRuns(t)
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

// checkLeaderboards: every leaderboard the overview shows has the numbers
// kgjudge leaderboard --format json gives for the same runs (means, 95%
// intervals, paired differences and their Holm-corrected p), and the
// by-run means are summary.json's avg@N.
func checkLeaderboards(t *testing.T, b *browser, gt string, outs []string, modelSubsets int) {
	t.Helper()
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	ci := func(lo, hi float64, ok bool) string {
		if !ok {
			return "–"
		}
		return "[" + f4(lo) + ", " + f4(hi) + "]"
	}
	for _, by := range reportBoards {
		var out bytes.Buffer
		if err := runLeaderboard(t.Context(), leaderboardOptions{Source: runSource{GT: gt}, By: by, Format: "json", Metric: "triplet_f1"}, outs, &out); err != nil {
			t.Fatalf("leaderboard --by %s: %v", by, err)
		}
		var board struct {
			Rows []struct {
				Label     string
				Avg, Best map[string]struct {
					Mean, CILow, CIHigh float64
					HasCI               bool
				}
			}
			Pairs []struct {
				A, B                        string
				Delta, CILow, CIHigh, PHolm float64
				HasCI                       bool
			}
		}
		// The JSON's snake_case keys, mapped onto the struct above.
		raw := strings.NewReplacer(`"ci_low"`, `"CILow"`, `"ci_high"`, `"CIHigh"`, `"has_ci"`, `"HasCI"`, `"p_holm"`, `"PHolm"`).Replace(out.String())
		if err := json.Unmarshal([]byte(raw), &board); err != nil {
			t.Fatal(err)
		}
		if len(board.Rows) == 0 {
			t.Fatalf("leaderboard --by %s has no rows", by)
		}
		var shown int
		b.run(t, "rows of board "+by, chromedp.Evaluate(fmt.Sprintf(`document.querySelectorAll('#board-%s table.leaderboard tbody tr').length`, by), &shown))
		if shown != len(board.Rows) {
			t.Errorf("board by %s shows %d rows, the leaderboard has %d", by, shown, len(board.Rows))
		}
		var sels, wants []string
		for _, r := range board.Rows {
			for _, c := range []struct{ sel, want string }{
				{`td[data-metric="avg.triplet_f1"]`, f4(r.Avg["triplet_f1"].Mean)},
				{`td[data-ci="avg.triplet_f1"]`, ci(r.Avg["triplet_f1"].CILow, r.Avg["triplet_f1"].CIHigh, r.Avg["triplet_f1"].HasCI)},
				{`td[data-metric="best.triplet_f1"]`, f4(r.Best["triplet_f1"].Mean)},
				{`td[data-ci="best.triplet_f1"]`, ci(r.Best["triplet_f1"].CILow, r.Best["triplet_f1"].CIHigh, r.Best["triplet_f1"].HasCI)},
				{`td[data-metric="avg.triplet_recall"]`, f4(r.Avg["triplet_recall"].Mean)},
			} {
				sels = append(sels, fmt.Sprintf(`#board-%s tr[data-row=%q] %s`, by, r.Label, c.sel))
				wants = append(wants, c.want)
			}
		}
		for _, p := range board.Pairs {
			holm := f4(p.PHolm)
			if p.PHolm < 0.0001 {
				holm = "<0.0001"
			}
			for _, c := range []struct{ sel, want string }{
				{`td[data-ci="delta"]`, ci(p.CILow, p.CIHigh, p.HasCI)},
				{`td[data-metric="p_holm"]`, holm},
			} {
				sels = append(sels, fmt.Sprintf(`#board-%s tr[data-a=%q][data-b=%q] %s`, by, p.A, p.B, c.sel))
				wants = append(wants, c.want)
			}
		}
		for i, got := range b.texts(t, sels) {
			if got != wants[i] {
				t.Errorf("%s = %q, kgjudge leaderboard --format json: %q", sels[i], got, wants[i])
			}
		}
		if by == "run" {
			if len(board.Pairs) != 1 {
				t.Errorf("two runs, %d paired differences", len(board.Pairs))
			}
			for _, dir := range outs {
				sum := readSummary(t, dir)
				var got string
				b.run(t, "board run mean", chromedp.Text(fmt.Sprintf(`#board-run tr[data-row=%q] td[data-metric="avg.triplet_f1"]`, sum["run"]), &got, chromedp.ByQuery))
				if want := f4(sum[fmt.Sprintf("avg@%d_triplet_f1", int(sum["num_samples"].(float64)))].(float64)); got != want {
					t.Errorf("leaderboard %s avg F1 %s, summary.json %s", sum["run"], got, want)
				}
			}
		}
	}
	var bars int
	b.run(t, "model x subset chart", chromedp.Evaluate(`document.querySelectorAll('#chart-model-subset rect').length`, &bars))
	if bars != modelSubsets || bars < 2 {
		t.Errorf("chart of F1 by model x subset has %d bars, want one per (model, subset): %d", bars, modelSubsets)
	}
}

// checkConsistency: the self-consistency panel shows what kgjudge agree
// computes from the store for each run.
func checkConsistency(t *testing.T, b *browser, store string) {
	t.Helper()
	rep, err := runAgree(t.Context(), agreeOptions{RunA: "recorded", RunB: "offline", Store: store}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Consistency {
		if c.Cited == 0 {
			t.Fatalf("run %s cites no support: nothing to check", c.Run)
		}
		for k, want := range map[string]string{"cited": strconv.Itoa(c.Cited), "cited_invalid": strconv.Itoa(c.CitedInvalid), "share_invalid": strconv.FormatFloat(c.Share, 'f', 4, 64)} {
			var got string
			sel := fmt.Sprintf(`#consistency tr[data-run=%q] td[data-metric=%q]`, c.Run, k)
			b.run(t, "read "+sel, chromedp.Text(sel, &got, chromedp.ByQuery))
			if got != want {
				t.Errorf("%s = %q, kgjudge agree: %q", sel, got, want)
			}
		}
	}
}
