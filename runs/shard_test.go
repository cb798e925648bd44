package runs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

func TestShardSplit(t *testing.T) {
	mk := func() *Inputs {
		in := &Inputs{TaskByID: map[string]*kg.Task{}}
		// Ids out of order: the split sorts them.
		for _, id := range []string{"t3", "t1", "t7", "t0", "t5", "t2", "t6", "t4", "t9", "t8"} {
			in.Tasks = append(in.Tasks, kg.Task{ID: id})
			in.IDs = append(in.IDs, id)
			for s := range 2 {
				in.Preds = append(in.Preds, kg.Prediction{TaskID: id, SampleIdx: s})
			}
		}
		in.Preds = append(in.Preds, kg.Prediction{QID: "unmatched"})
		for i := range in.Tasks {
			in.TaskByID[in.Tasks[i].ID] = &in.Tasks[i]
		}
		in.Problems = []error{fmt.Errorf("bad file")}
		return in
	}
	seen := map[string]int{}
	var digest string
	for i := 1; i <= 3; i++ {
		in := mk()
		info := in.Shard(Shard{I: i, N: 3})
		if digest == "" {
			digest = info.TasksDigest
		} else if info.TasksDigest != digest {
			t.Errorf("shard %d: another digest", i)
		}
		if info.AllTasks != 10 || info.LoadProblems != 1 || len(info.Order) != 20 || info.Order[0] != (SampleRef{"t3", 0}) {
			t.Errorf("shard %d: %+v", i, info)
		}
		// 10 tasks in 3 slices: 4, 3, 3.
		if want := []int{4, 3, 3}[i-1]; len(info.Tasks) != want || len(in.Tasks) != want || len(in.Samples()) != 2*want {
			t.Errorf("shard %d: %d tasks (%d kept, %d samples), want %d", i, len(info.Tasks), len(in.Tasks), len(in.Samples()), want)
		}
		for _, id := range info.Tasks {
			seen[id]++
			if in.TaskByID[id] == nil || in.TaskByID[id].ID != id {
				t.Errorf("shard %d: TaskByID[%s] wrong", i, id)
			}
		}
		if i == 1 && strings.Join(info.Tasks, ",") != "t0,t3,t6,t9" {
			t.Errorf("shard 1/3 = %v, want every third of the sorted ids from the first", info.Tasks)
		}
	}
	if len(seen) != 10 {
		t.Errorf("the shards cover %d of 10 tasks", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d shards", id, n)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/2", "2/2", "0/1", "3/2", " 1 / 4 ", "x", "1/", "/2", "-1/-1", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--shard") {
				t.Errorf("error does not name the flag: %v", err)
			}
			return
		}
		if sh.N < 1 || sh.I < 1 || sh.I > sh.N {
			t.Errorf("%q parsed to %+v", s, sh)
		}
	})
}
