package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgjudge/kgjudge/kg"
)

// Shard is slice I of N (1-based) of a run's tasks. Task ids are sorted
// and the k-th (0-based) goes to shard k mod N + 1: the slices differ in
// size by one task at most, and every machine computes the same split from
// the same ground truth without talking to the others. (A changed task
// list reshuffles the split; shards of one run must read the same --gt,
// which merge checks.)
type Shard struct{ I, N int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return Shard{I: i, N: n}, nil
}

// SampleRef names one (task, sample).
type SampleRef struct {
	Task   string `json:"task"`
	Sample int    `json:"sample"`
}

// ShardInfo is OUT/shard.json: which slice a shard's outputs hold and what
// merge needs to rebuild the unsharded summary exactly.
type ShardInfo struct {
	Shard int `json:"shard"`
	Of    int `json:"of"`
	// Tasks are the shard's task ids.
	Tasks []string `json:"tasks"`
	// AllTasks and TasksDigest (sha256 of the sorted ids, one a line)
	// identify the ground truth the split was made from.
	AllTasks    int    `json:"all_tasks"`
	TasksDigest string `json:"tasks_digest"`
	// LoadProblems is how many of summary.json's failed_inputs come from
	// reading the inputs (every shard reads all of them, so every shard
	// lists them); the rest are the shard's own samples.
	LoadProblems int `json:"load_problems"`
	// Order is every sample of the unsharded run in input order: the order
	// the unsharded run aggregates its structure report in.
	Order []SampleRef `json:"order"`
}

// Shard keeps the tasks of slice sh, and the predictions of those tasks,
// and describes the split. Call it after the judge is built (a replay
// judge matches recorded verdicts against every task).
func (in *Inputs) Shard(sh Shard) ShardInfo {
	ids := append([]string(nil), in.IDs...)
	sort.Strings(ids)
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id + "\n"))
	}
	info := ShardInfo{Shard: sh.I, Of: sh.N, AllTasks: len(ids), TasksDigest: hex.EncodeToString(h.Sum(nil)),
		LoadProblems: len(in.Problems), Tasks: []string{}, Order: []SampleRef{}}
	for _, p := range in.Samples() {
		info.Order = append(info.Order, SampleRef{p.TaskID, p.SampleIdx})
	}
	keep := map[string]bool{}
	for k, id := range ids {
		if k%sh.N == sh.I-1 {
			keep[id] = true
			info.Tasks = append(info.Tasks, id)
		}
	}
	var tasks []kg.Task
	for _, t := range in.Tasks {
		if keep[t.ID] {
			tasks = append(tasks, t)
		}
	}
	var preds []kg.Prediction
	for _, p := range in.Preds {
		if keep[p.TaskID] {
			preds = append(preds, p)
		}
	}
	in.Tasks, in.Preds, in.IDs = tasks, preds, nil
	in.TaskByID = make(map[string]*kg.Task, len(tasks))
	for i := range in.Tasks {
		in.TaskByID[in.Tasks[i].ID] = &in.Tasks[i]
		in.IDs = append(in.IDs, in.Tasks[i].ID)
	}
	return info
}
