package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/llmjudge"
	"github.com/kgjudge/kgjudge/llmjudge/cache"
)

type cacheOptions struct {
	Store     string
	JSON      bool
	OlderThan time.Duration
	Stale     bool
	Model     string
}

func cacheCommand() *ucli.Command {
	var o cacheOptions
	storeFlag := &ucli.StringFlag{Name: "store", Usage: "store directory (the cache is STORE/judge-cache)", Value: ".kgjudge", Destination: &o.Store, EnvVars: []string{"KGJUDGE_STORE"}}
	jsonFlag := &ucli.BoolFlag{Name: "json", Usage: "print JSON", Destination: &o.JSON}
	return &ucli.Command{
		Name:  "cache",
		Usage: "inspect or prune the LLM judge's verdict cache",
		Description: `The openai judge writes every verdict to STORE/judge-cache as it arrives; identical claims
(same endpoint model, prompt version, decoding settings, claim and candidate texts) are never
asked twice, by any run. Prune it while no run is using the store.

EXAMPLES:
   kgjudge cache stats
   kgjudge cache prune --stale                 # drop verdicts of prompt versions no longer in use
   kgjudge cache prune --older-than 720h --model gpt-4.1`,
		Subcommands: []*ucli.Command{
			{
				Name:  "stats",
				Usage: "entries, size, age and prompt versions of the cache",
				Flags: []ucli.Flag{storeFlag, jsonFlag},
				Action: func(c *ucli.Context) error {
					return runCacheStats(o, c.App.Writer)
				},
			},
			{
				Name:  "prune",
				Usage: "compact the cache and drop old or stale verdicts",
				Flags: []ucli.Flag{storeFlag, jsonFlag,
					&ucli.DurationFlag{Name: "older-than", Usage: "drop verdicts written longer ago than this (e.g. 720h)", Destination: &o.OlderThan},
					&ucli.BoolFlag{Name: "stale", Usage: "drop verdicts of prompt versions this kgjudge no longer uses", Destination: &o.Stale},
					&ucli.StringFlag{Name: "model", Usage: "limit --older-than and --stale to this judge model", Destination: &o.Model},
				},
				Action: func(c *ucli.Context) error {
					return runCachePrune(o, time.Now(), c.App.Writer)
				},
			},
		},
	}
}

func cacheDir(store string) (string, error) {
	if store == ":memory:" {
		return "", userErrorf("an in-memory store has no judge cache")
	}
	dir := filepath.Join(store, "judge-cache")
	if _, err := os.Stat(dir); err != nil {
		return "", userErrorf("no judge cache in %s (%v)", store, err)
	}
	return dir, nil
}

func runCacheStats(o cacheOptions, w io.Writer) error {
	dir, err := cacheDir(o.Store)
	if err != nil {
		return err
	}
	st, err := llmjudge.CacheStats(dir)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if o.JSON {
		return printJSON(w, st)
	}
	fmt.Fprintf(w, "cache %s: %d verdict(s), %d byte(s), %d superseded, %d torn line(s)\n", st.Path, st.Entries, st.Bytes, st.Superseded, st.Torn)
	if !st.Oldest.IsZero() {
		fmt.Fprintf(w, "written %s .. %s\n", st.Oldest.UTC().Format(time.RFC3339), st.Newest.UTC().Format(time.RFC3339))
	}
	tb := &table{}
	tb.add("model", "prompt", "verdicts")
	for _, p := range st.ByPrompt {
		tb.add(p.Model, p.Prompt, strconv.Itoa(p.Entries))
	}
	tb.write(w)
	return nil
}

func runCachePrune(o cacheOptions, now time.Time, w io.Writer) error {
	dir, err := cacheDir(o.Store)
	if err != nil {
		return err
	}
	opts := cache.PruneOptions{Model: o.Model}
	if o.OlderThan > 0 {
		opts.Before = now.Add(-o.OlderThan)
	}
	if o.Stale {
		opts.KeepPrompts = llmjudge.CurrentPrompts()
	}
	res, err := llmjudge.PruneCache(dir, opts)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if o.JSON {
		return printJSON(w, res)
	}
	fmt.Fprintf(w, "kept %d, removed %d (plus %d superseded, %d torn); %d -> %d bytes\n", res.Kept, res.Removed, res.Superseded, res.Torn, res.BytesBefore, res.BytesAfter)
	return nil
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
