package runs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// WritePlanJSON writes out to path as WriteJSON would, byte for byte, but
// one item at a time: a plan of 800 samples is ~400 MB of indented JSON,
// and json.MarshalIndent of the whole holds it twice (the compact form and
// the indented copy) on top of the items themselves.
func WritePlanJSON(path string, out *PlanOutput) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	err = EncodePlanJSON(f, out)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("output: %w", cerr)
	}
	if err == nil {
		if err = os.Rename(tmp, path); err != nil {
			err = fmt.Errorf("output: %w", err)
		}
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// EncodePlanJSON writes out to w as indented JSON and a newline, the bytes
// json.MarshalIndent(out, "", "  ") gives, encoding one item at a time.
func EncodePlanJSON(w io.Writer, out *PlanOutput) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	part := func(prefix string, v any) error {
		b, err := json.MarshalIndent(v, prefix, "  ")
		if err != nil {
			return fmt.Errorf("encode plan: %w", err)
		}
		_, err = bw.Write(b)
		return err
	}
	// The layout of PlanOutput's fields, in their order: items, totals,
	// embedding (omitted when nil).
	bw.WriteString("{\n  \"items\": ")
	if out.Items == nil {
		bw.WriteString("null")
	} else {
		bw.WriteString("[")
	}
	for i := range out.Items {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		if err := part("    ", &out.Items[i]); err != nil {
			return err
		}
	}
	if len(out.Items) > 0 {
		bw.WriteString("\n  ")
	}
	if out.Items != nil {
		bw.WriteString("]")
	}
	bw.WriteString(",\n  \"totals\": ")
	if err := part("  ", &out.Totals); err != nil {
		return err
	}
	if out.Embedding != nil {
		bw.WriteString(",\n  \"embedding\": ")
		if err := part("  ", out.Embedding); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
