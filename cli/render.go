package cli

import (
	"io"
	"strings"

	"github.com/kgjudge/kgjudge/internal/textwidth"
)

// table renders rows with the first column left-aligned and the others
// right-aligned, measuring display width so CJK task ids line up (tabwriter
// counts a wide character as one column).
type table struct {
	rows [][]string
	// left aligns every column left (query results, whose columns are
	// whatever the query returns).
	left bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// displayWidth: see textwidth.Of (one measure for every table).
func displayWidth(s string) int { return textwidth.Of(s) }

func (t *table) write(w io.Writer) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			if d := displayWidth(c); d > widths[i] {
				widths[i] = d
			}
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-displayWidth(c))
			if i > 0 && t.left {
				b.WriteString("  " + c + pad)
			} else if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}
