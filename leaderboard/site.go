package leaderboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/runset"
)

// Site is the benchmark site's leaderboard.json: per model and framework,
// the avg@N triplet precision, recall and F1 of the pro and daily subsets
// (percent, 2 decimals, macro over tasks) and their mean.
type Site struct {
	Title      string          `json:"title"`
	Metric     string          `json:"metric"`
	Frameworks []SiteFramework `json:"frameworks"`
	Models     []SiteModel     `json:"models"`
}

// SiteFramework is one column group of the site.
type SiteFramework struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// SiteModel is one model's line: its name, then one entry per framework id
// (a JSON key of its own, in the order of Site.Frameworks).
type SiteModel struct {
	Name       string
	Frameworks []SiteEntry
}

// SiteEntry is one model under one framework.
type SiteEntry struct {
	Framework string   `json:"-"`
	Pro       *SitePRF `json:"pro,omitempty"`
	Daily     *SitePRF `json:"daily,omitempty"`
	Avg       *SitePRF `json:"avg,omitempty"`
}

// SitePRF holds percentages with 2 decimals.
type SitePRF struct {
	P  float64 `json:"p"`
	R  float64 `json:"r"`
	F1 float64 `json:"f1"`
}

// SiteMetric is the figure the site shows.
const SiteMetric = "Triplet F1 (%)"

// frameworkLabels are the display names of known agent frameworks.
var frameworkLabels = map[string]string{"react": "ReAct", "openclaw": "OpenClaw"}

// MarshalJSON writes {"name": ..., "<framework id>": {...}, ...}.
func (m SiteModel) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	name, _ := json.Marshal(m.Name)
	b.WriteString(`{"name":`)
	b.Write(name)
	for _, e := range m.Frameworks {
		k, _ := json.Marshal(e.Framework)
		v, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		b.WriteString(",")
		b.Write(k)
		b.WriteString(":")
		b.Write(v)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// UnmarshalJSON reads the shape MarshalJSON writes; framework entries keep
// the order of the file.
func (m *SiteModel) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("site model: want an object")
	}
	*m = SiteModel{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key := t.(string)
		if key == "name" {
			if err := dec.Decode(&m.Name); err != nil {
				return fmt.Errorf("site model name: %w", err)
			}
			continue
		}
		var e SiteEntry
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("site model %q framework %q: %w", m.Name, key, err)
		}
		e.Framework = key
		m.Frameworks = append(m.Frameworks, e)
	}
	_, err := dec.Token()
	return err
}

// BuildSite computes the site's shape: avg@N of triplet P, R and F1 per
// model, framework and subset (pro, daily), macro over tasks, missing
// samples scored 0 unless skip. avg is the mean of the pro and daily
// figures as shown (2 decimals), so a reader can check it; it is left out
// when the model has only one of them. Models are in name order,
// frameworks in id order.
func BuildSite(set runset.Set, title string, skip bool) (*Site, error) {
	for _, r := range set.Runs {
		if r.Framework == "" {
			return nil, fmt.Errorf("run %s has no framework: the site groups models by framework (give --meta FILE with run,model,framework columns)", r.Name)
		}
	}
	b, err := Build(set, Options{By: []string{"model", "framework", "subset"}, Skip: skip})
	if err != nil {
		return nil, err
	}
	var bad []string
	type key struct{ model, fw string }
	entries := map[key]*SiteEntry{}
	fws := map[string]bool{}
	for _, r := range b.Rows {
		model, fw, subset := r.Group[0], r.Group[1], r.Group[2]
		if subset != "pro" && subset != "daily" {
			bad = append(bad, fmt.Sprintf("%s/%s: %d task(s) of subset %q", model, fw, r.Tasks, subset))
			continue
		}
		e := entries[key{model, fw}]
		if e == nil {
			e = &SiteEntry{Framework: fw}
			entries[key{model, fw}] = e
		}
		fws[fw] = true
		prf := &SitePRF{P: pct2(r.Avg["triplet_precision"].exact.Mean), R: pct2(r.Avg["triplet_recall"].exact.Mean), F1: pct2(r.Avg["triplet_f1"].exact.Mean)}
		if subset == "pro" {
			e.Pro = prf
		} else {
			e.Daily = prf
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("the site shows the pro and daily subsets only; give every task its subset (score --subset, or --gt with task files that name it): %s", strings.Join(bad, "; "))
	}
	s := &Site{Title: title, Metric: SiteMetric, Frameworks: []SiteFramework{}, Models: []SiteModel{}}
	var ids []string
	for fw := range fws {
		ids = append(ids, fw)
	}
	sort.Strings(ids)
	for _, id := range ids {
		label := frameworkLabels[strings.ToLower(id)]
		if label == "" {
			label = id
		}
		s.Frameworks = append(s.Frameworks, SiteFramework{ID: id, Label: label})
	}
	models := map[string]bool{}
	for k := range entries {
		models[k.model] = true
	}
	var names []string
	for m := range models {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, name := range names {
		m := SiteModel{Name: name}
		for _, id := range ids {
			e := entries[key{name, id}]
			if e == nil {
				continue
			}
			if e.Pro != nil && e.Daily != nil {
				e.Avg = &SitePRF{P: mean2(e.Pro.P, e.Daily.P), R: mean2(e.Pro.R, e.Daily.R), F1: mean2(e.Pro.F1, e.Daily.F1)}
			}
			m.Frameworks = append(m.Frameworks, *e)
		}
		s.Models = append(s.Models, m)
	}
	return s, nil
}

// WriteSite writes leaderboard.json.
func WriteSite(w io.Writer, s *Site) error {
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// ReadSite parses leaderboard.json.
func ReadSite(r io.Reader) (*Site, error) {
	var s Site
	dec := json.NewDecoder(r)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("leaderboard.json: %w", err)
	}
	return &s, nil
}

// pct2 is a fraction in percent, rounded to 2 decimals (correctly rounded
// from the double, as Python's round(x, 2)).
func pct2(x float64) float64 { return round2(x * 100) }

func mean2(a, b float64) float64 { return round2((a + b) / 2) }

func round2(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	if v == 0 || math.IsNaN(v) {
		return 0
	}
	return v
}
