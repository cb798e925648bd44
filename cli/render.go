package cli

import (
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/width"
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

// displayWidth is how many terminal columns s takes: two for wide and
// fullwidth characters, none for combining marks and format characters
// (a decomposed "é", a zero-width joiner), one for the rest.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case width.LookupRune(r).Kind() == width.EastAsianWide, width.LookupRune(r).Kind() == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

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
