package report

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// The vendored libraries (versions and licences in assets/VENDOR.md) and
// the page's own script and style, embedded so that a report opens from
// disk with no network.
var (
	//go:embed assets/cytoscape.min.js
	cytoscapeJS string
	//go:embed assets/cytoscape-dagre.min.js
	dagreJS string
	//go:embed assets/app.js
	appJS string
	//go:embed assets/style.css
	styleCSS string
)

// The task blobs come last, after the page's script: the overview is drawn
// (and can be clicked) while the parser still reads the blobs, which only a
// task page needs.
var page = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="kgjudge report">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head><body>
<div id="app"><noscript>This report needs JavaScript.</noscript></div>
<script type="application/json" id="kg-overview">{{.Overview}}</script>
<script>{{.Cytoscape}}</script>
<script>{{.Dagre}}</script>
<script>{{.App}}</script>
{{range $i, $b := .Blobs}}<script type="application/octet-stream" id="kg-task-{{$i}}">{{$b}}</script>
{{end}}</body></html>
`))

// WriteHTML writes the report as one self-contained HTML file. The same
// input gives the same bytes.
func WriteHTML(w io.Writer, in Input) error {
	ov, details, refs := buildPayload(in)
	ovJSON, err := json.Marshal(ov)
	if err != nil {
		return fmt.Errorf("report: encode overview: %w", err)
	}
	blobs := make([]template.HTML, len(details))
	for i := range details {
		d := &details[i]
		if err := fill(d, refs[i]); err != nil {
			return fmt.Errorf("report: task %s: %w", d.ID, err)
		}
		b, err := blob(*d)
		if err != nil {
			return fmt.Errorf("report: encode task %s: %w", d.ID, err)
		}
		blobs[i] = template.HTML(b) // base64: no markup characters
		// Only the compressed blob stays.
		*d = taskDetail{}
	}
	bw := bufio.NewWriter(w)
	// json.Marshal escapes <, > and & (no "</script>" can end a block
	// early), and base64 has none: both go in as they are.
	err = page.Execute(bw, map[string]any{
		"Title":     in.Title,
		"CSS":       template.CSS(styleCSS),
		"Overview":  template.JS(ovJSON),
		"Blobs":     blobs,
		"Cytoscape": template.JS(scriptSafe(cytoscapeJS)),
		"Dagre":     template.JS(scriptSafe(dagreJS)),
		"App":       template.JS(appJS),
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return bw.Flush()
}

// scriptSafe keeps a vendored script from closing its own <script> element.
func scriptSafe(js string) string {
	return strings.ReplaceAll(js, "</script", `<\/script`)
}
