package kg

import "testing"

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  Hello,  World! ", "hello world"},
		{"ＡＢＣ　１２３", "abc 123"},          // full width folds to ASCII
		{"“兰蔻”（Lancôme）", "兰蔻 lancôme"}, // CJK punctuation dropped
		{"$19.99", "$19.99"}, {"1,000 km.", "1,000 km"},
		{"+17.1%", "+17.1%"},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNodeNamesDistinctInOrder(t *testing.T) {
	task := Task{Nodes: []Node{{ID: "a", Name: "x"}, {ID: "b", Name: "y"}, {ID: "c", Name: "x"}}}
	got := task.NodeNames()
	if len(got) != 2 || got[0] != "x" || got[1] != "y" {
		t.Fatalf("NodeNames = %v", got)
	}
}
