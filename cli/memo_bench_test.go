package cli

import (
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/alias"
	"github.com/kgjudge/kgjudge/internal/fixtures"
)

// BenchmarkAliasScopeFingerprint is what an --aliases file adds to each
// sample's memo key (a rescore pays it for every sample): the relevance
// rule over the 11 fixtures' strings, with a 200-entry alias file.
func BenchmarkAliasScopeFingerprint(b *testing.B) {
	var lines []string
	for i := 0; i < 100; i++ {
		lines = append(lines, "alias\tEntity"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+" Name\tOther"+string(rune('a'+i%26))+" name")
		lines = append(lines, "concept\tc"+string(rune('a'+i%26))+"\tterm"+string(rune('a'+i%26))+" word")
	}
	ua, err := alias.ParseAliases(strings.NewReader(strings.Join(lines, "\n")), "bench")
	if err != nil {
		b.Fatal(err)
	}
	a := newAliasScope(ua)
	var fx []fixtures.Fixture
	for _, n := range fixtures.All() {
		fx = append(fx, fixtures.Load(b, n))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := &fx[i%len(fx)]
		_ = a.fingerprint(&f.Task, &f.Pred)
	}
}
