package cayley

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgjudge/kgjudge/hierarchy"
	"github.com/kgjudge/kgjudge/kg"
	"github.com/kgjudge/kgjudge/kgstore"
	"github.com/kgjudge/kgjudge/kgstore/storetest"
)

// TestPutTasksSkipsUnchanged: writing the same tasks again changes no quad
// (the content hash says so without reading the graphs), while a changed
// task or another classifier rewrites exactly what changed.
func TestPutTasksSkipsUnchanged(t *testing.T) {
	ctx := context.Background()
	for _, b := range []string{BBolt, LevelDB, MemStore} {
		t.Run(b, func(t *testing.T) {
			s := openBackendT(t, b, t.TempDir())
			defer s.Close()
			tasks := storetest.Tasks()
			if err := kgstore.PutTasks(ctx, s, tasks); err != nil {
				t.Fatal(err)
			}
			if s.deltas == 0 {
				t.Fatalf("first PutTasks wrote no quads")
			}
			s.deltas = -1
			if err := kgstore.PutTasks(ctx, s, tasks); err != nil {
				t.Fatal(err)
			}
			if s.deltas != 0 {
				t.Errorf("PutTasks of unchanged tasks: %d quad changes, want 0", s.deltas)
			}
			changed := append([]kg.Task(nil), tasks...)
			changed[1].FinalQuery += " (revised)"
			if err := kgstore.PutTasks(ctx, s, changed); err != nil {
				t.Fatal(err)
			}
			if s.deltas != 4 {
				t.Errorf("PutTasks with one changed query: %d quad changes, want 4 (the query and the hash, each removed and added)", s.deltas)
			}
			for _, task := range changed {
				got, err := s.Task(ctx, task.ID)
				want := task
				want.Source = ""
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("task %q read back as %+v, %v", task.ID, got, err)
				}
			}
			s.SetClassifier(hierarchy.GraphClassifier{})
			if err := kgstore.PutTasks(ctx, s, changed); err != nil {
				t.Fatal(err)
			}
			cls, err := s.TaskClasses(ctx, changed[0].ID)
			if err != nil || len(cls) != len(changed[0].Triples) {
				t.Errorf("TaskClasses after a classifier was set: %q, %v", cls, err)
			}
		})
	}
}
