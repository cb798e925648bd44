package ingest

import "testing"

func TestParseResponseCountsMisaligned(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want int
	}{
		{"aligned", `[{"head":"a","relation":"b","tail":"c"}]`, 0},
		{"subject/predicate/object", `[{"subject":"a","predicate":"b","object":"c"},{"head":"a","relation":"b","tail":"c"}]`, 1},
		{"missing tail", `[{"head":"a","relation":"b"}]`, 1},
		{"arrays", `[["a","b","c"],["d","e","f"]]`, 2},
		{"non-object item", `[{"head":"a","relation":"b","tail":"c"}, "stray"]`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := ParseResponse(tc.in)
			if rep.Misaligned != tc.want {
				t.Errorf("Misaligned = %d, want %d (report %+v)", rep.Misaligned, tc.want, rep)
			}
		})
	}
}
