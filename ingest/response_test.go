package ingest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func tr(h, r, t string) kg.Triple { return kg.Triple{Head: h, Relation: r, Tail: t} }

// responseCases are agent answers with the triples and report expected.
// Every case the reference parse_triples recovers was checked to give the
// reference's list.
var responseCases = []struct {
	name   string
	text   string
	want   []kg.Triple
	status kg.ParseStatus
	method string
	// Optional report checks.
	stringified, skipped, salvaged int
	note                           string
}{
	{
		name:   "fenced",
		text:   "```json\n[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}]\n```",
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseClean, method: "fence",
	},
	{
		name:   "prose around fence",
		text:   "Here is the knowledge graph I built:\n\n```json\n[\n {\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"},\n {\"head\": \"B\", \"relation\": \"s\", \"tail\": \"C\"}\n]\n```\n\nLet me know if you need more.",
		want:   []kg.Triple{tr("A", "r", "B"), tr("B", "s", "C")},
		status: kg.ParseClean, method: "fence",
	},
	{
		name:   "whole text",
		text:   "  [{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}]\n",
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseClean, method: "whole",
	},
	{
		name:   "prose around bare array",
		text:   "Final answer: [{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}] (2 sources).",
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseClean, method: "brackets",
	},
	{
		// Curly quotes are valid inside JSON strings; the reference repair
		// (run here because of the control character) makes them plain.
		name:   "curly double quotes and a control character",
		text:   "```json\n[{\"head\": \"Game \u201cX\u201d\x02\", \"relation\": \"tier\", \"tail\": \"Gold\"}]\n```",
		want:   []kg.Triple{tr(`Game "X" `, "tier", "Gold")},
		status: kg.ParseRepaired, method: "fence",
	},
	{
		// The reference repair turns ’ into \' (invalid JSON), so it
		// salvages by regex, which keeps the text as it is.
		name:   "curly apostrophe and a control character",
		text:   "[{\"head\": \"Sid Meier\u2019s Civilization VII\", \"relation\": \"tier\", \"tail\": \"Plat\x01inum\"}]",
		want:   []kg.Triple{tr("Sid Meier\u2019s Civilization VII", "tier", "Plat\x01inum")},
		status: kg.ParseSalvaged, method: "salvage", salvaged: 1,
	},
	{
		name:   "control characters",
		text:   "```json\n[{\"head\": \"A\x01B\", \"relation\": \"r\", \"tail\": \"C\x0bD\"}]\n```",
		want:   []kg.Triple{tr("A B", "r", "C D")},
		status: kg.ParseRepaired, method: "fence",
	},
	{
		// A raw newline inside a string defeats the reference repair; its
		// regex salvage keeps the newline (and escapes) verbatim.
		name:   "raw newline in a value",
		text:   "[{\"head\": \"A\nB\", \"relation\": \"r\", \"tail\": \"say \\\"hi\\\"\"}]",
		want:   []kg.Triple{tr("A\nB", "r", `say \"hi\"`)},
		status: kg.ParseSalvaged, method: "salvage", salvaged: 1,
	},
	{
		name:   "truncated mid-array",
		text:   "```json\n[\n {\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"},\n {\"head\": \"C\", \"relation\": \"s\", \"tail\": \"D\"},\n {\"head\": \"E\", \"relation\": \"t\", \"ta",
		want:   []kg.Triple{tr("A", "r", "B"), tr("C", "s", "D")},
		status: kg.ParseTruncated, method: "salvage", salvaged: 2, note: "cut off",
	},
	{
		name:   "truncated inside a string, no fence",
		text:   "[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}, {\"head\": \"C\", \"relation\": \"s\", \"tail\": \"D is a long sent",
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseTruncated, method: "salvage", salvaged: 1, note: "cut off",
	},
	{
		name:   "truncated with non-string values (beyond the reference)",
		text:   "[{\"head\": \"A\", \"relation\": \"year\", \"tail\": 2025}, {\"head\": \"B\", \"relation\": \"r\", \"tail\": null}, {\"head\": \"C\"",
		want:   []kg.Triple{tr("A", "year", "2025"), tr("B", "r", "")},
		status: kg.ParseTruncated, method: "salvage", salvaged: 2, stringified: 2, note: "cut off",
	},
	{
		name:   "empty text",
		text:   " \n\t ",
		status: kg.ParseEmpty,
	},
	{
		name:   "empty list",
		text:   "```json\n[]\n```",
		status: kg.ParseEmpty, method: "fence",
	},
	{
		name:   "malformed",
		text:   "I could not find enough information to build a graph.",
		status: kg.ParseMalformed,
	},
	{
		name:   "malformed list of numbers",
		text:   "[1, 2, 3]",
		status: kg.ParseMalformed, skipped: 3,
	},
	{
		name: "non-string values",
		text: `[{"head": "A", "relation": "founded", "tail": 1998},` +
			` {"head": "B", "relation": "price", "tail": 1.50},` +
			` {"head": "C", "relation": "listed", "tail": true},` +
			` {"head": "D", "relation": "ceo", "tail": null},` +
			` {"head": "E", "relation": "big", "tail": 1e16},` +
			` {"head": "F", "relation": "tags", "tail": ["x", 1, null, {"k": false}]}]`,
		want: []kg.Triple{
			tr("A", "founded", "1998"), tr("B", "price", "1.5"), tr("C", "listed", "True"),
			tr("D", "ceo", ""), tr("E", "big", "1e+16"), tr("F", "tags", "['x', 1, None, {'k': False}]"),
		},
		status: kg.ParseClean, method: "whole", stringified: 6,
	},
	{
		name:   "subject/predicate/object",
		text:   `[{"subject": "A", "predicate": "r", "object": "B"}]`,
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseClean, method: "whole", note: "subject/predicate/object",
	},
	{
		name:   "arrays (beyond the reference)",
		text:   "```json\n[[\"A\", \"r\", \"B\"], [\"C\", \"s\", 3]]\n```",
		want:   []kg.Triple{tr("A", "r", "B"), tr("C", "s", "3")},
		status: kg.ParseClean, method: "fence", stringified: 1, note: "reference parser recovers no triple",
	},
	{
		// Mixed lists keep the reference's indices: arrays are dropped.
		name:   "objects and arrays mixed",
		text:   `[{"head": "A", "relation": "r", "tail": "B"}, ["C", "s", "D"], {"head": "E", "relation": "t", "tail": "F"}]`,
		want:   []kg.Triple{tr("A", "r", "B"), tr("E", "t", "F")},
		status: kg.ParseClean, method: "whole", skipped: 1,
	},
	{
		name:   "object missing a key is kept (reference indices)",
		text:   `[{"head": "A", "relation": "r"}, {"head": "B", "relation": "s", "tail": "C"}]`,
		want:   []kg.Triple{tr("A", "r", ""), tr("B", "s", "C")},
		status: kg.ParseClean, method: "whole", note: "lack head",
	},
	{
		name:   "first fenced list wins",
		text:   "```json\n[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"}]\n```\nand also\n```json\n[{\"head\": \"C\", \"relation\": \"s\", \"tail\": \"D\"}]\n```",
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseClean, method: "fence",
	},
	{
		name:   "triplets object",
		text:   `{"qid": "020", "triplets": [{"head": "A", "relation": "r", "tail": "B"}]}`,
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseClean, method: "brackets",
	},
	{
		name:   "raw newline and curly-quoted keys (beyond the reference)",
		text:   "[{\u201chead\u201d: \u201cA\u201d, \u201crelation\u201d: \u201cr\u201d, \u201ctail\u201d: \u201cB\nC\u201d}]",
		want:   []kg.Triple{tr("A", "r", "B\nC")},
		status: kg.ParseRepaired, method: "repair",
	},
	{
		name:   "keys in another order, malformed list (beyond the reference)",
		text:   `[{"tail": "B", "head": "A", "relation": "r"}, oops]`,
		want:   []kg.Triple{tr("A", "r", "B")},
		status: kg.ParseSalvaged, method: "salvage", salvaged: 1,
	},
}

func TestParseResponse(t *testing.T) {
	for _, c := range responseCases {
		t.Run(c.name, func(t *testing.T) {
			got, rep := ParseResponse(c.text)
			if len(got) == 0 && len(c.want) == 0 {
				got, c.want = nil, nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("triples\n got %q\nwant %q", got, c.want)
			}
			if rep.Status != c.status || rep.Method != c.method {
				t.Errorf("status %q method %q, want %q %q (report %+v)", rep.Status, rep.Method, c.status, c.method, rep)
			}
			if rep.Triples != len(got) {
				t.Errorf("report.Triples %d, got %d triples", rep.Triples, len(got))
			}
			if rep.Stringified != c.stringified || rep.Skipped != c.skipped || rep.Salvaged != c.salvaged {
				t.Errorf("stringified/skipped/salvaged = %d/%d/%d, want %d/%d/%d (notes %q)",
					rep.Stringified, rep.Skipped, rep.Salvaged, c.stringified, c.skipped, c.salvaged, rep.Notes)
			}
			if c.note != "" && !strings.Contains(strings.Join(rep.Notes, "\n"), c.note) {
				t.Errorf("notes %q lack %q", rep.Notes, c.note)
			}
			checkReport(t, got, rep)
		})
	}
}

// checkReport asserts the invariants every report keeps.
func checkReport(t *testing.T, triples []kg.Triple, rep kg.ParseReport) {
	t.Helper()
	if rep.Triples != len(triples) {
		t.Fatalf("report.Triples %d != %d", rep.Triples, len(triples))
	}
	valid := false
	for _, s := range kg.ParseStatuses {
		valid = valid || rep.Status == s
	}
	if !valid {
		t.Fatalf("unknown status %q", rep.Status)
	}
	empty := rep.Status == kg.ParseEmpty || rep.Status == kg.ParseMalformed
	if empty != (len(triples) == 0) {
		t.Fatalf("status %q with %d triples", rep.Status, len(triples))
	}
	if (rep.Status == kg.ParseSalvaged || rep.Status == kg.ParseTruncated) != (rep.Salvaged > 0) {
		t.Fatalf("status %q with salvaged %d", rep.Status, rep.Salvaged)
	}
	if rep.Salvaged > len(triples) || rep.Stringified < 0 || rep.Skipped < 0 {
		t.Fatalf("counts out of range: %+v", rep)
	}
}

func TestPyStr(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"x"`, "x"}, {`null`, ""}, {`true`, "True"}, {`false`, "False"},
		{`0`, "0"}, {`-0`, "0"}, {`12345678901234567890123`, "12345678901234567890123"},
		{`1.0`, "1.0"}, {`1.10`, "1.1"}, {`1E2`, "100.0"}, {`1e15`, "1000000000000000.0"},
		{`1e16`, "1e+16"}, {`0.0001`, "0.0001"}, {`0.00001`, "1e-05"}, {`-0.0`, "-0.0"},
		{`1.5e300`, "1.5e+300"}, {`1e999`, "inf"}, {`-1e999`, "-inf"}, {`123.456`, "123.456"},
		{`[1, "a", null, true]`, "[1, 'a', None, True]"},
		{`{"k": "it's", "j": 2.50}`, `{'k': "it's", 'j': 2.5}`},
		{`{"a": 1, "b": 2, "a": 3}`, "{'a': 3, 'b': 2}"},
		{`["a'\"b", "\n\u0001"]`, `['a\'"b', '\n\x01']`},
		{`["中文"]`, "['中文']"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, _, err := pyStr([]byte(c.in))
			if err != nil || got != c.want {
				t.Errorf("pyStr(%s) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}
