package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/resolve"
)

// ncclRun is an nccl_tests program during a run.
type ncclRun struct{}

// buildNCCLTests makes an nccl_tests program's calls (not built yet:
// the format refuses the generator).
func (n *Network) buildNCCLTests(t *resolve.NCCLTest) error {
	return fmt.Errorf("traffic[%d]: nccl_tests is not built yet", t.Generator)
}
