package leaderboard

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Whatever ReadSite accepts, it writes back to a file that reads the same.
func FuzzReadSite(f *testing.F) {
	f.Add(siteExample)
	f.Add(`{"title": "", "metric": "", "frameworks": [], "models": [{"name": "x"}]}`)
	f.Add(`{"models": [{"name": "x", "react": {"pro": {"p": 1}}}]}`)
	f.Add(`{"models": [{"react": 1}]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		site, err := ReadSite(strings.NewReader(s))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteSite(&out, site); err != nil {
			t.Fatalf("write: %v", err)
		}
		back, err := ReadSite(&out)
		if err != nil {
			t.Fatalf("written file does not read: %v\n%s", err, out.String())
		}
		if !reflect.DeepEqual(site, back) {
			t.Errorf("round trip changed %q", s)
		}
	})
}

func FuzzParseBy(f *testing.F) {
	for _, s := range []string{"", "run", "model,framework", "Subset, language ,domain", "x", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		by, err := ParseBy(s)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, d := range by {
			ok := false
			for _, k := range Dimensions {
				ok = ok || k == d
			}
			if !ok || seen[d] {
				t.Errorf("%q -> %v", s, by)
			}
			seen[d] = true
		}
	})
}
