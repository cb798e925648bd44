package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kgjudge/kgjudge/internal/inputfile"
	"github.com/kgjudge/kgjudge/kg"
)

// ReadTask reads one ground-truth task file.
func ReadTask(path string) (kg.Task, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return kg.Task{}, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	defer f.Close()
	return DecodeTask(f, path)
}

// DecodeTask decodes a ground-truth task. name is used in errors and as
// Task.Source.
//
// Two layouts are accepted, even mixed triple by triple: id-based (the
// reference's: nodes with node_id/node_name, triples with
// head_id/relation/tail_id) and name-based (triples with head/relation/tail).
// An id with no node falls back to the id itself as the name, as the
// reference does, with a warning. A name-based file without "nodes" gets its
// nodes from the triples in order of first appearance (Node.ID = name).
// Extensions: nodes[].aliases, triples[].weight/stage/kind. Unknown keys are
// ignored.
func DecodeTask(r io.Reader, name string) (kg.Task, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return kg.Task{}, &InputError{File: name, Msg: "cannot read: " + errText(err), Err: err}
	}
	return decodeTask(data, name)
}

func decodeTask(data []byte, name string) (kg.Task, error) {
	task := kg.Task{Source: name}
	// A UTF-8 byte order mark (Windows editors write one) is not JSON.
	data = bytes.TrimPrefix(data, utf8BOM)
	if bad := badUTF8(data, 1); bad != "" {
		addWarning(&task, "file", "%s", bad)
	}
	var top map[string]json.RawMessage
	if err := unmarshalTop(data, &top, name, "a JSON object (a task)"); err != nil {
		return task, err
	}
	var err error
	if task.ID, err = reqString(top, "task_id", "", name); err != nil {
		return task, err
	}
	if task.ID == "" {
		return task, inputErr(name, 0, "task_id", "empty")
	}
	if task.Language, _, err = optString(top, "language", "", name); err != nil {
		return task, err
	}
	var hasQuery bool
	if task.Subset, _, err = optString(top, "subset", "", name); err != nil {
		return task, err
	}
	if task.FinalQuery, hasQuery, err = optString(top, "final_query", "", name); err != nil {
		return task, err
	}
	if !hasQuery {
		addWarning(&task, "final_query", "missing (the reference loader requires it)")
	}

	// Nodes.
	idToName := map[string]string{}
	idFirst := map[string]int{}
	_, hasNodes := top["nodes"]
	if hasNodes {
		items, err := rawList(top["nodes"], "nodes", name)
		if err != nil {
			return task, err
		}
		task.Nodes = make([]kg.Node, 0, len(items))
		for i, it := range items {
			p := fmt.Sprintf("nodes[%d]", i)
			m, err := rawObject(it, p, name)
			if err != nil {
				return task, err
			}
			var n kg.Node
			if n.ID, err = reqScalar(m, "node_id", p, name); err != nil {
				return task, err
			}
			if n.Name, err = reqScalar(m, "node_name", p, name); err != nil {
				return task, err
			}
			if raw, ok := m["aliases"]; ok && !isNull(raw) {
				if err := json.Unmarshal(raw, &n.Aliases); err != nil {
					return task, inputErr(name, 0, p+".aliases", "must be a list of strings")
				}
			}
			if j, dup := idFirst[n.ID]; dup {
				// The reference's id -> name map keeps the last name, and
				// node recall counts names through that map.
				addWarning(&task, p+".node_id", "%q repeats nodes[%d]; both take the last name %q, as in the reference", n.ID, j, n.Name)
				for k := range task.Nodes {
					if task.Nodes[k].ID == n.ID {
						task.Nodes[k].Name = n.Name
					}
				}
			} else {
				idFirst[n.ID] = i
			}
			idToName[n.ID] = n.Name
			task.Nodes = append(task.Nodes, n)
		}
	}

	// Triples.
	rawTriples, ok := top["triples"]
	if !ok {
		return task, inputErr(name, 0, "triples", "missing")
	}
	items, err := rawList(rawTriples, "triples", name)
	if err != nil {
		return task, err
	}
	if len(items) == 0 {
		addWarning(&task, "triples", "empty: the task has no ground-truth triple to cover (every sample of it scores triplet recall 0)")
	}
	nodeNames := map[string]bool{}
	for _, n := range task.Nodes {
		nodeNames[n.Name] = true
	}
	derived := map[string]bool{}
	unknownIDs := map[string]bool{}
	task.Triples = make([]kg.GTTriple, 0, len(items))
	for i, it := range items {
		p := fmt.Sprintf("triples[%d]", i)
		m, err := rawObject(it, p, name)
		if err != nil {
			return task, err
		}
		var t kg.GTTriple
		if t.Relation, err = reqScalar(m, "relation", p, name); err != nil {
			return task, err
		}
		_, hid := m["head_id"]
		_, tid := m["tail_id"]
		if hid || tid {
			if t.HeadID, err = reqScalar(m, "head_id", p, name); err != nil {
				return task, err
			}
			if t.TailID, err = reqScalar(m, "tail_id", p, name); err != nil {
				return task, err
			}
			for _, f := range [2]struct {
				id, field string
				dst       *string
			}{{t.HeadID, "head_id", &t.Head}, {t.TailID, "tail_id", &t.Tail}} {
				if nm, ok := idToName[f.id]; ok {
					*f.dst = nm
					continue
				}
				*f.dst = f.id
				if !unknownIDs[f.id] {
					unknownIDs[f.id] = true
					addWarning(&task, p+"."+f.field, "%q has no node; its name falls back to the id, as in the reference", f.id)
				}
			}
		} else {
			_, hh := m["head"]
			_, ht := m["tail"]
			if !hh && !ht {
				return task, inputErr(name, 0, p, `missing "head_id"/"tail_id" (or "head"/"tail")`)
			}
			if t.Head, err = reqScalar(m, "head", p, name); err != nil {
				return task, err
			}
			if t.Tail, err = reqScalar(m, "tail", p, name); err != nil {
				return task, err
			}
			for _, nm := range [2]string{t.Head, t.Tail} {
				if hasNodes {
					if !nodeNames[nm] && !derived[nm] {
						derived[nm] = true
						addWarning(&task, p, "%q is not the name of any node (node metrics only count the nodes list)", nm)
					}
				} else if !derived[nm] {
					derived[nm] = true
					task.Nodes = append(task.Nodes, kg.Node{ID: nm, Name: nm})
				}
			}
		}
		if raw, ok := m["weight"]; ok && !isNull(raw) {
			if err := json.Unmarshal(raw, &t.Weight); err != nil {
				return task, inputErr(name, 0, p+".weight", "must be a number")
			}
			if t.Weight < 0 {
				return task, inputErr(name, 0, p+".weight", "must not be negative (got %v)", t.Weight)
			}
		}
		if raw, ok := m["stage"]; ok && !isNull(raw) {
			if err := json.Unmarshal(raw, &t.Stage); err != nil {
				return task, inputErr(name, 0, p+".stage", "must be an integer")
			}
		}
		if t.Kind, _, err = optString(m, "kind", p, name); err != nil {
			return task, err
		}
		task.Triples = append(task.Triples, t)
	}
	return task, nil
}

// FileErrors from ReadTasks also carry duplicate task ids.

// ReadTasks reads a task file, or every *.json file directly in a directory
// (as the reference loader does). Tasks come back sorted by id. Bad files
// and duplicate task ids are collected in a *FileErrors while the good tasks
// are still returned.
func ReadTasks(path string) ([]kg.Task, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	if !st.IsDir() {
		t, err := ReadTask(path)
		if err != nil {
			return nil, err
		}
		return []kg.Task{t}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot list: " + errText(err), Err: err}
	}
	var errs FileErrors
	var tasks []kg.Task
	seen := map[string]string{}
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		file := filepath.Join(path, e.Name())
		t, err := ReadTask(file)
		if err != nil {
			errs.add(err)
			continue
		}
		if prev, dup := seen[t.ID]; dup {
			errs.add(inputErr(file, 0, "task_id", "task id %q is also the id of %s", t.ID, prev))
			continue
		}
		seen[t.ID] = file
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 && len(errs.Errs) == 0 {
		return nil, noTaskFile(path, entries)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, errs.orNil()
}

// noTaskFile says why a directory gave no task, and what it holds instead.
func noTaskFile(dir string, entries []os.DirEntry) error {
	var subdirs, others []string
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir():
			if m, _ := filepath.Glob(filepath.Join(dir, e.Name(), "*.json")); len(m) > 0 {
				subdirs = append(subdirs, e.Name()+"/")
			}
		default:
			others = append(others, e.Name())
		}
	}
	msg := "no ground-truth task file in this directory: expected *.json files directly in it, each a JSON object with \"task_id\" and \"triples\" (subdirectories are not read)"
	if len(subdirs) > 0 {
		msg += "; task files are in " + listSome(subdirs) + ": give that directory"
	}
	if len(others) > 0 {
		msg += "; it holds " + listSome(others)
	}
	if len(entries) == 0 {
		msg += "; it is empty"
	}
	return inputErr(dir, 0, "", "%s", msg)
}

func listSome(names []string) string {
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

// --- small JSON helpers shared by the readers ---

// unmarshalTop decodes a whole document, turning syntax errors into an
// *InputError with the line number.
func unmarshalTop(data []byte, v any, name, want string) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &InputError{File: name, Line: lineOf(data, se.Offset), Msg: "invalid JSON: " + se.Error(), Err: err}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return &InputError{File: name, Msg: fmt.Sprintf("expected %s, found a JSON %s", want, te.Value), Err: err}
		}
		return &InputError{File: name, Path: jsonFieldPath(te.Field), Msg: "wrong type: found a JSON " + te.Value, Err: err}
	}
	return &InputError{File: name, Msg: "invalid JSON: " + err.Error(), Err: err}
}

// jsonFieldPath drops the Go names (embedded structs, decoding helpers) that
// encoding/json puts in a field path, keeping the JSON keys.
func jsonFieldPath(field string) string {
	var keep []string
	for _, part := range strings.Split(field, ".") {
		if part == "" || part == "plain" || (part[0] >= 'A' && part[0] <= 'Z') {
			continue
		}
		keep = append(keep, part)
	}
	return strings.Join(keep, ".")
}

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func rawList(raw json.RawMessage, path, name string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return nil, inputErr(name, 0, path, "must be a list, found %s", jsonKind(raw))
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, inputErr(name, 0, path, "must be a list: %v", err)
	}
	return items, nil
}

func rawObject(raw json.RawMessage, path, name string) (map[string]json.RawMessage, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, inputErr(name, 0, path, "must be an object, found %s", jsonKind(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, inputErr(name, 0, path, "must be an object: %v", err)
	}
	return m, nil
}

// reqString requires key to be a JSON string.
func reqString(m map[string]json.RawMessage, key, parent, name string) (string, error) {
	s, ok, err := optString(m, key, parent, name)
	if err == nil && !ok {
		err = inputErr(name, 0, joinPath(parent, key), "missing")
	}
	return s, err
}

func optString(m map[string]json.RawMessage, key, parent, name string) (string, bool, error) {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, inputErr(name, 0, joinPath(parent, key), "must be a string, found %s", jsonKind(raw))
	}
	return s, true, nil
}

// reqScalar requires key to be a string or a number (stringified as
// Python's str() would). Ground-truth ids and names are used as text.
func reqScalar(m map[string]json.RawMessage, key, parent, name string) (string, error) {
	raw, ok := m[key]
	if !ok {
		return "", inputErr(name, 0, joinPath(parent, key), "missing")
	}
	switch jsonKind(raw) {
	case "a string", "a number":
		s, _, err := pyStr(raw)
		if err != nil {
			return "", inputErr(name, 0, joinPath(parent, key), "%v", err)
		}
		return s, nil
	}
	return "", inputErr(name, 0, joinPath(parent, key), "must be a string, found %s", jsonKind(raw))
}

// errText drops the "open PATH: " prefix that os errors repeat.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
