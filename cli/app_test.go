package cli

import (
	"slices"
	"testing"
)

func TestInterspersedFlags(t *testing.T) {
	app := newApp(nil, nil)
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"kgjudge", "agree", "a", "b", "--store", "s", "--json"}, []string{"kgjudge", "agree", "--store", "s", "--json", "--", "a", "b"}},
		{[]string{"kgjudge", "agree", "--show=3", "a", "--json", "b"}, []string{"kgjudge", "agree", "--show=3", "--json", "--", "a", "b"}},
		{[]string{"kgjudge", "agree", "a", "--", "--odd-run-name"}, []string{"kgjudge", "agree", "--", "a", "--odd-run-name"}},
		{[]string{"kgjudge", "score", "--gt", "g", "--pred", "p"}, []string{"kgjudge", "score", "--gt", "g", "--pred", "p"}},
		{[]string{"kgjudge", "cache", "stats", "--store", "s"}, []string{"kgjudge", "cache", "stats", "--store", "s"}}, // subcommands: untouched
		{[]string{"kgjudge", "--help"}, []string{"kgjudge", "--help"}},
	} {
		if got := interspersed(app, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("interspersed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
