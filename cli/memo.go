package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kgjudge/kgjudge/runs"
)

// openOfflineMemo opens the offline judge's rescore memo in the store
// directory (nil for other judges, an in-memory store, --no-memo, or a
// judge given by a test).
func openOfflineMemo(o scoreOptions) (*runs.Memo, error) {
	if o.Judge != "offline" || o.judge != nil || o.NoMemo || o.Store == ":memory:" || o.Store == "" {
		return nil, nil
	}
	cfg, err := offlineMemoConfig(o)
	if err != nil {
		return nil, err
	}
	m, err := runs.OpenMemo(filepath.Join(o.Store, runs.MemoDir), cfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", o.Store, err)
	}
	return m, nil
}

// offlineMemoConfig names everything besides a sample's inputs that decides
// the offline judge's verdicts and items: the kgjudge binary (its code, the
// shipped weights and lexicons are inside it), the --offline-model and
// --aliases files' contents, and the embedding stage's model and endpoint.
// Any change gives other memo keys, so those samples are judged again.
func offlineMemoConfig(o scoreOptions) (string, error) {
	h := sha256.New()
	w := func(s string) { h.Write([]byte(strconv.Itoa(len(s)) + ":" + s)) }
	w("offline")
	w(Version)
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("rescore memo: %w (pass --no-memo)", err)
	}
	sum, err := fileHash(exe)
	if err != nil {
		return "", fmt.Errorf("rescore memo: hash the kgjudge binary: %w (pass --no-memo)", err)
	}
	w(sum)
	for _, f := range []struct{ flag, path string }{{"--offline-model", o.Model}, {"--aliases", o.Aliases}} {
		w(f.flag)
		if f.path == "" {
			w("")
			continue
		}
		sum, err := fileHash(f.path)
		if err != nil {
			return "", &UserError{Err: fmt.Errorf("%s: %w", f.flag, err)}
		}
		w(sum)
	}
	em, err := json.Marshal(newEmbedManifest(o.embedder))
	if err != nil {
		return "", err
	}
	w(string(em))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
