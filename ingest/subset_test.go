package ingest

import (
	"strings"
	"testing"
)

func TestDecodeTaskSubset(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"present", `{"task_id":"t","final_query":"q","subset":"pro","nodes":[],"triples":[]}`, "pro", ""},
		{"absent", `{"task_id":"t","final_query":"q","nodes":[],"triples":[]}`, "", ""},
		{"not a string", `{"task_id":"t","final_query":"q","subset":3,"nodes":[],"triples":[]}`, "", "subset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, err := DecodeTask(strings.NewReader(tc.in), "task.json")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "task.json") {
					t.Fatalf("err = %v, want one naming the file and %q", err, tc.err)
				}
				return
			}
			if err != nil || task.Subset != tc.want {
				t.Fatalf("subset %q, err %v; want %q", task.Subset, err, tc.want)
			}
		})
	}
}
