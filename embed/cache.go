package embed

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
)

// CacheFile is the vector file inside a cache directory.
const CacheFile = "vectors.jsonl"

// Cache keeps vectors by key, in memory and, when it has a directory, in
// an append-only JSONL file there (one record per line: key, dimension,
// little-endian float32 vector in base64). A batch is written with one
// write and fsynced; a torn line (a crash mid-write) is skipped on load and
// the next append starts on a new line. Safe for concurrent use; several processes may append to one file.
type Cache struct {
	mu   sync.Mutex
	m    map[string][]float32
	path string
	f    *os.File
	torn int
}

// Torn is the number of torn lines skipped on load.
func (c *Cache) Torn() int { return c.torn }

type record struct {
	Key string `json:"key"`
	Dim int    `json:"dim"`
	Vec string `json:"vec"`
}

// Key is the cache key of one text sent to one model: the hex SHA-256 of
// the model, the input type sent ("" when none) and the exact text.
func Key(model, inputType, text string) string {
	h := sha256.New()
	for _, s := range []string{model, inputType, text} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OpenCache loads (creating it if needed) the cache in dir; dir "" gives a
// cache in memory only.
func OpenCache(dir string) (*Cache, error) {
	c := &Cache{m: map[string][]float32{}}
	if dir == "" {
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("embed: cache: %w", err)
	}
	c.path = filepath.Join(dir, CacheFile)
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("embed: cache: %w", err)
	}
	if err := c.load(f); err != nil {
		f.Close()
		return nil, err
	}
	c.f = f
	return c, nil
}

func (c *Cache) load(f *os.File) error {
	r := bufio.NewReaderSize(f, 1<<20)
	line := 0
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			line++
			complete := b[len(b)-1] == '\n'
			var rec record
			if jerr := json.Unmarshal(bytes.TrimSpace(b), &rec); jerr != nil || rec.Key == "" {
				// A torn write: the last line of a crashed run, or such a
				// line that a later run ended with a newline. Skipped;
				// its texts are embedded again.
				c.torn++
				if !complete {
					break
				}
				continue
			}
			v, derr := decodeVec(rec.Vec, rec.Dim)
			if derr != nil {
				return fmt.Errorf("embed: cache %s line %d: %w", c.path, line, derr)
			}
			c.m[rec.Key] = v
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("embed: cache %s: %w", c.path, err)
		}
	}
	// A torn line has no newline: end it so the next append starts clean.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte("\n")); err != nil {
				return fmt.Errorf("embed: cache %s: %w", c.path, err)
			}
		}
	}
	return nil
}

func encodeVec(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func decodeVec(s string, dim int) ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("vector: %w", err)
	}
	if dim <= 0 || len(b) != 4*dim {
		return nil, fmt.Errorf("vector of %d bytes, want %d floats", len(b), dim)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Get returns the vector of key, if cached.
func (c *Cache) Get(key string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

// Len is the number of vectors cached.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Put stores vectors by key (keys[i] -> vecs[i]) and, with a file,
// appends and fsyncs them before returning.
func (c *Cache) Put(keys []string, vecs [][]float32) error {
	if len(keys) != len(vecs) {
		return fmt.Errorf("embed: cache: %d keys for %d vectors", len(keys), len(vecs))
	}
	var buf bytes.Buffer
	if c.f != nil {
		for i, k := range keys {
			b, err := json.Marshal(record{Key: k, Dim: len(vecs[i]), Vec: encodeVec(vecs[i])})
			if err != nil {
				return fmt.Errorf("embed: cache: %w", err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		if _, err := c.f.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("embed: cache %s: %w", c.path, err)
		}
		if err := c.f.Sync(); err != nil {
			return fmt.Errorf("embed: cache %s: %w", c.path, err)
		}
	}
	for i, k := range keys {
		c.m[k] = vecs[i]
	}
	return nil
}

// Close closes the cache file.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}
