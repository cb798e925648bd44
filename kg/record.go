package kg

// Record is one sample's evaluation in the reference evaluator's per-sample
// format (FORMATS.md §3; results/eval/<experiment>/<task_id>_sample<N>.json,
// also the tail of a trajectory line), keys in the reference's order. ingest
// reads published records into it; matcher's Item embeds it and writes the
// same keys first, then kgjudge's. Sections a record lacks (a sample with no
// predicted triple has no details) are nil.
type Record struct {
	QID       string `json:"qid"`
	SampleIdx int    `json:"sample_idx"`

	NodePrecision float64      `json:"node_precision"`
	NodeRecall    float64      `json:"node_recall"`
	NodeF1        float64      `json:"node_f1"`
	NodeDetails   *NodeDetails `json:"node_details,omitempty"`

	TripletPrecision float64          `json:"triplet_precision"`
	TripletRecall    float64          `json:"triplet_recall"`
	TripletF1        float64          `json:"triplet_f1"`
	Coverage         *CoverageDetails `json:"coverage_details,omitempty"`
	Validity         *ValidityDetails `json:"validity_details,omitempty"`
	NumPredTriples   int              `json:"num_pred_triples"`
}

// NodeDetails is the reference's node_details: node counts and metrics.
type NodeDetails struct {
	TotalGTNodes     int     `json:"total_gt_nodes"`
	RecalledGTNodes  int     `json:"recalled_gt_nodes"`
	TotalPredNodes   int     `json:"total_pred_nodes"`
	PrecisePredNodes int     `json:"precise_pred_nodes"`
	NodePrecision    float64 `json:"node_precision"`
	NodeRecall       float64 `json:"node_recall"`
	NodeF1           float64 `json:"node_f1"`
}

// CoverageDetails is the coverage pass: one record per GT triple.
// Unjudged is kgjudge's (0 in the reference's records).
type CoverageDetails struct {
	TotalGTTriples int        `json:"total_gt_triples"`
	CoveredCount   int        `json:"covered_count"`
	TripletRecall  float64    `json:"triplet_recall"`
	Unjudged       int        `json:"unjudged"`
	PerGTTriple    []GTRecord `json:"per_gt_triple"`
}

// GTRecord is the judge's coverage verdict on one GT triple, with kgjudge's
// additions (state, kind, judge, reason; empty in the reference's records).
type GTRecord struct {
	GTIndex               int          `json:"gt_index"`
	GTTriple              Triple       `json:"gt_triple"`
	Covered               bool         `json:"covered"`
	SupportingPredIndices []int        `json:"supporting_pred_indices"`
	State                 State        `json:"state"`
	Kind                  CoverageKind `json:"kind,omitempty"`
	Judge                 string       `json:"judge,omitempty"`
	Reason                string       `json:"reason,omitempty"`
	// Prob is a calibrated judge's probability that the claim is covered.
	Prob *float64 `json:"prob,omitempty"`
	// CandidatesShown are the predicted triples the judge was shown for
	// this claim (kgjudge's prefilter), for reports.
	CandidatesShown []int `json:"candidates_shown,omitempty"`
	// Unread are supporting indices a judge wrote that are not integers
	// ("P-3", 3.5, null), as written: reported, never counted.
	Unread []string `json:"-"`
}

// ValidityDetails is the validity pass: one record per predicted triple.
// Unjudged is kgjudge's (0 in the reference's records).
type ValidityDetails struct {
	TotalPredTriples int          `json:"total_pred_triples"`
	ValidCount       int          `json:"valid_count"`
	TripletPrecision float64      `json:"triplet_precision"`
	Unjudged         int          `json:"unjudged"`
	PerPredTriple    []PredRecord `json:"per_pred_triple"`
}

// PredRecord is the judge's validity verdict on one predicted triple, with
// kgjudge's additions (state, judge, reason).
type PredRecord struct {
	PredIndex           int    `json:"pred_index"`
	PredTriple          Triple `json:"pred_triple"`
	Valid               bool   `json:"valid"`
	SupportingGTIndices []int  `json:"supporting_gt_indices"`
	State               State  `json:"state"`
	Judge               string `json:"judge,omitempty"`
	Reason              string `json:"reason,omitempty"`
	// Prob is a calibrated judge's probability that the triple is valid.
	Prob *float64 `json:"prob,omitempty"`
	// CandidatesShown are the GT triples the judge was shown.
	CandidatesShown []int `json:"candidates_shown,omitempty"`
	// Unread are supporting indices that are not integers, as written.
	Unread []string `json:"-"`
}
