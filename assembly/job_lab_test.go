package assembly

import "testing"

// TestAITrainingLab: the ai-training lab's lessons hang on what each
// scenario changes: beside-ecmp with all four servers in one scalable
// unit (the README's fifth question) no longer slows the jobs (its
// min_job_slowdown fails); beside-spray without spraying collides again
// (max_job_slowdown and the uplinks' imbalance fail); beside-dcqcn
// without DCQCN pauses again (max_pause_fraction fails); alone with a
// longer compute misses its iteration time.
func TestAITrainingLab(t *testing.T) {
	checkLabMutations(t, "ai-training", []labMutation{
		{"beside-ecmp", "servers_per_rail_switch: 2", "servers_per_rail_switch: 4"},
		{"beside-spray", ", load_balance: spray}", "}"},
		{"beside-dcqcn", "hca: {cc: dcqcn, priority: 3}", "hca: {cc: none, priority: 3}"},
		{"alone", "compute: {duration: 100us}", "compute: {duration: 300us}"},
	})
}
