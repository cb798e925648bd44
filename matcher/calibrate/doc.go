// Package calibrate is the offline judge's model: features of each claim (a
// GT triple for coverage, a predicted triple for validity) over its
// matcher/prefilter candidates, today's rules of matcher/rules and the
// deterministic tier among them; a regularised logistic regression per pass
// fitted on recorded verdicts (Fit), with thresholds and calibration error
// chosen by leave-one-sample-out cross-validation inside the training
// samples; the cross-validation report of the whole judge (CrossValidate);
// and the estimates with 95% intervals that go next to thresholded scores
// (Estimate).
//
// The shipped weights (weights.json, embedded) are `kgjudge calibrate
// --labels testdata/fixtures` on the repository's 11 recorded samples.
// Features are computed once per claim-candidate pair from strings
// normalised once per sample; fitting and prediction iterate in fixed order,
// so the same inputs give the same weights and verdicts, byte for byte.
//
// An embedding source is optional (Similarity): without it the cosine
// features are 0 and the shipped weights do not use them.
//
// The package decides nothing a caller does not ask for: it does not read
// runs, write outputs or compute the benchmark's metrics (matcher does).
package calibrate
