package alias

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/kgjudge/kgjudge/internal/inputfile"
	"github.com/kgjudge/kgjudge/kg"
)

// UserAliases is what an alias file (--aliases FILE) adds: alias sets for
// entities and extra terms for relation concepts.
type UserAliases struct {
	Sets     [][]string
	Concepts map[string][]string
}

// LoadAliasFile reads an alias file. The format is line based, UTF-8:
//
//	# comment (also blank lines)
//	alias	Behavioural Insights Team	BIT	Nudge Unit
//	concept	price	cost	fee	售价
//
// Fields are separated by tabs, or by "|" on a line without tabs. An
// "alias" line is one alias set (at least two distinct names after
// kg.Normalize); a "concept" line adds terms to a concept id (the built-in
// ids are in data/relation_concepts.tsv; a new id creates a concept).
// Errors name the file and line.
func LoadAliasFile(path string) (*UserAliases, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseAliases(f, path)
}

// ParseAliases reads the LoadAliasFile format from r; name is used in errors.
func ParseAliases(r io.Reader, name string) (*UserAliases, error) {
	ua := &UserAliases{Concepts: map[string][]string{}}
	err := eachLine(r, name, func(line int, text string) error {
		sep := "\t"
		if !strings.Contains(text, "\t") {
			sep = "|"
		}
		var f []string
		for _, x := range strings.Split(text, sep) {
			if x = strings.TrimSpace(x); x != "" {
				f = append(f, x)
			}
		}
		if len(f) == 0 {
			return nil
		}
		switch f[0] {
		case "alias":
			set := f[1:]
			if len(distinctKeys(set)) < 2 {
				return fmt.Errorf("%s:%d: alias set needs at least two different names, got %q", name, line, set)
			}
			ua.Sets = append(ua.Sets, set)
		case "concept":
			if len(f) < 3 {
				return fmt.Errorf("%s:%d: concept line needs an id and at least one term", name, line)
			}
			ua.Concepts[f[1]] = append(ua.Concepts[f[1]], f[2:]...)
		default:
			return fmt.Errorf("%s:%d: unknown line kind %q (want alias or concept)", name, line, f[0])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ua, nil
}

// GTAliasSets returns one alias set per GT node that has aliases: its name
// followed by its aliases (the kgjudge `nodes[].aliases` extension).
func GTAliasSets(nodes []kg.Node) [][]string {
	var sets [][]string
	for _, n := range nodes {
		if len(n.Aliases) == 0 {
			continue
		}
		set := append([]string{n.Name}, n.Aliases...)
		if len(distinctKeys(set)) >= 2 {
			sets = append(sets, set)
		}
	}
	return sets
}

// distinctKeys returns the distinct non-empty exact keys (Canon) of names,
// in first-seen order.
func distinctKeys(names []string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, n := range names {
		k := Canon(n)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		keys = append(keys, k)
	}
	return keys
}

func eachLine(r io.Reader, name string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		if err := fn(n, text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
