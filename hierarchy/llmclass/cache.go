package llmclass

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/kgjudge/kgjudge/llmjudge/transport"
)

// ReplyKey names one request: the model and every message.
func ReplyKey(model string, req *transport.Request) string {
	h := sha256.New()
	h.Write([]byte(model))
	for _, m := range req.Messages {
		fmt.Fprintf(h, "\x00%s\x00%s", m.Role, m.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cacheLine is one line of a cache file.
type cacheLine struct {
	Key     string `json:"key"`
	Model   string `json:"model"`
	Content string `json:"content"`
}

// Cache keeps the model's complete replies (every triple asked about got a
// valid class) in a JSONL file, one {"key", "model", "content"} object per
// line: a second run over the same graphs asks nothing, and a measurement
// made against a live model replays byte for byte with no endpoint. A reply
// with problems is never kept, so the next run asks again.
type Cache struct {
	mu     sync.Mutex
	path   string
	byKey  map[string]cacheLine
	f      *os.File // nil: read-only
	hits   int
	models map[string]bool
}

// ErrNotCached is a request a read-only cache does not hold (its triples
// are unjudged).
var ErrNotCached = errors.New("request not in the reply cache")

// OpenCache reads path (if it exists) and opens it for appending.
func OpenCache(path string) (*Cache, error) {
	c, err := readCache(path)
	if err != nil {
		return nil, err
	}
	c.f, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("llmclass: reply cache: %w", err)
	}
	return c, nil
}

// ReadCache reads path for replay only: Put is refused.
func ReadCache(path string) (*Cache, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("llmclass: reply cache: %w", err)
	}
	return readCache(path)
}

func readCache(path string) (*Cache, error) {
	c := &Cache{path: path, byKey: map[string]cacheLine{}, models: map[string]bool{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("llmclass: reply cache: %w", err)
	}
	// A last line without its newline is a write cut short (a crash): the
	// reply is asked again, and the next Put starts on a fresh line.
	complete := b
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		complete = b[:i+1]
	}
	sc := bufio.NewScanner(bytes.NewReader(complete))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l cacheLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Key == "" {
			return nil, fmt.Errorf("llmclass: reply cache %s line %d: not a {\"key\", \"model\", \"content\"} object (delete the line or the file to ask again)", path, n)
		}
		c.byKey[l.Key] = l
		c.models[l.Model] = true
	}
	if len(complete) < len(b) {
		if err := os.WriteFile(path, complete, 0o644); err != nil {
			return nil, fmt.Errorf("llmclass: reply cache: dropping a cut-short last line: %w", err)
		}
	}
	return c, sc.Err()
}

func (c *Cache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.byKey[key]
	if ok {
		c.hits++
	}
	return l.Content, ok
}

func (c *Cache) put(key, model, content string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return fmt.Errorf("llmclass: reply cache %s is read-only", c.path)
	}
	if _, ok := c.byKey[key]; ok {
		return nil
	}
	l := cacheLine{Key: key, Model: model, Content: content}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := c.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("llmclass: reply cache %s: %w", c.path, err)
	}
	c.byKey[key] = l
	c.models[model] = true
	return nil
}

// Len is the number of replies held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}

// Hits is the number of requests answered from the cache so far.
func (c *Cache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// Models lists the models of the replies held, sorted.
func (c *Cache) Models() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.models))
	for m := range c.models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Close closes the file (a read-only cache has none).
func (c *Cache) Close() error {
	if c.f == nil {
		return nil
	}
	return c.f.Close()
}
