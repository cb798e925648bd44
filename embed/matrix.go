package embed

import (
	"context"
	"fmt"
)

// Embedder is what Matrix needs (a *Client).
type Embedder interface {
	Embed(ctx context.Context, role Role, texts []string) ([][]float32, error)
}

var _ Embedder = (*Client)(nil)

// Matrix returns the cosine of every query (Query role) with every
// passage (Passage role): m[i][j] = Cosine(query i, passage j).
func Matrix(ctx context.Context, e Embedder, queries, passages []string) ([][]float64, error) {
	qv, err := e.Embed(ctx, Query, queries)
	if err != nil {
		return nil, err
	}
	pv, err := e.Embed(ctx, Passage, passages)
	if err != nil {
		return nil, err
	}
	if len(qv) != len(queries) || len(pv) != len(passages) {
		return nil, fmt.Errorf("embed: %d and %d vectors for %d queries and %d passages", len(qv), len(pv), len(queries), len(passages))
	}
	m := make([][]float64, len(qv))
	for i := range qv {
		m[i] = make([]float64, len(pv))
		for j := range pv {
			m[i][j] = Cosine(qv[i], pv[j])
		}
	}
	return m, nil
}
