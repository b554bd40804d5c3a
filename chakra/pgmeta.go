package chakra

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ProcessGroup is a process group a METADATA node declares: PyTorch's
// "## process_group:init ##" node, whose inputs' values Chakra's
// converter writes as Python prints a list of one JSON string,
// ['[{"pg_name": "0", ..., "ranks": [0, 1]}, ...]'], and ASTRA-sim's
// Workload::issue_pytorch_pg_metadata reads (the JSON between the first
// two and the last two characters). No ranks is every rank.
type ProcessGroup struct {
	Name  string `json:"pg_name"`
	Ranks []int  `json:"ranks"`
}

// metadataGroups reads the process groups of a METADATA node's inputs'
// values: none when they do not hold a list of one JSON list of
// objects (a metadata node of another kind), an error when they do but
// it does not decode as process groups.
func metadataGroups(file string, id uint64, values string) ([]ProcessGroup, error) {
	inner, ok := strings.CutPrefix(values, "['")
	if inner, ok2 := strings.CutSuffix(inner, "']"); ok && ok2 && strings.HasPrefix(strings.TrimSpace(inner), "[{") {
		var pgs []ProcessGroup
		if err := json.Unmarshal([]byte(inner), &pgs); err != nil {
			return nil, nodeErr(file, id, "a METADATA_NODE's process groups (inputs.values) do not decode: %v: expected [{\"pg_name\": \"1\", \"ranks\": [0, 1]}, ...] as PyTorch writes them", err)
		}
		for _, pg := range pgs {
			if _, err := strconv.Atoi(pg.Name); err != nil {
				return nil, nodeErr(file, id, "process group %q: expected an integer pg_name, as ASTRA-sim reads them", pg.Name)
			}
		}
		return pgs, nil
	}
	return nil, nil
}

// addMetadataGroups adds the process groups the ranks' METADATA nodes
// declare to g (a copy): every rank that declares a group must declare
// the same ranks for it, as must the communicator-group file.
func addMetadataGroups(traces []*Trace, g Groups) (Groups, error) {
	out := Groups{}
	for k, v := range g {
		out[k] = v
	}
	from := map[string]string{}
	for _, t := range traces {
		for i := range t.Nodes {
			n := &t.Nodes[i]
			for _, pg := range n.Groups {
				id, _ := strconv.Atoi(pg.Name)
				key := strconv.Itoa(id)
				ranks := slices.Clone(pg.Ranks)
				if len(ranks) == 0 {
					for r := range traces {
						ranks = append(ranks, r)
					}
				}
				seen := map[int]bool{}
				for _, r := range ranks {
					if r < 0 || r >= len(traces) || seen[r] {
						return nil, nodeErr(t.File, n.ID, "process group %q lists rank %d: expected each of its ranks once, from 0 to %d", pg.Name, r, len(traces)-1)
					}
					seen[r] = true
				}
				if key == "0" {
					continue // every rank, whatever is declared (ASTRA-sim's extract_comm_group)
				}
				if have, ok := out[key]; ok && !slices.Equal(have, ranks) {
					where := "the communicator-group file"
					if f, ok := from[key]; ok {
						where = f
					}
					return nil, nodeErr(t.File, n.ID, "process group %q is ranks %v here but %v in %s: expected one set of ranks per group", pg.Name, ranks, have, where)
				}
				if _, ok := out[key]; !ok {
					out[key] = ranks
					from[key] = fmt.Sprintf("%s node %d", t.File, n.ID)
				}
			}
		}
	}
	return out, nil
}
