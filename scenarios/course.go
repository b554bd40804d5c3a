package scenarios

// CourseLab is one lab of the course, in the order a class takes them:
// Name is its folder under labs/ once it is built; Minutes is about how
// long a student needs for it (reading, running, answering); Needs says,
// for a lab not built yet, what model it waits for.
type CourseLab struct {
	Name    string
	Topic   string
	Minutes int
	Needs   string
}

// Course is the thirteen labs of the RDMA course (SCENARIO.md, "Labs"), in
// order: verbs and the transports first, then lossless Ethernet and its
// failures, InfiniBand, connection set-up, lossy RDMA, load balancing and
// AI training traffic.
var Course = []CourseLab{
	{Name: "first-verbs-program", Topic: "Your first verbs program", Minutes: 30},
	{Name: "transports", Topic: "RC, UC and UD", Minutes: 20},
	{Name: "one-and-two-sided", Topic: "One-sided and two-sided operations", Minutes: 25},
	{Name: "memory-protection", Topic: "Memory protection", Minutes: 20},
	{Name: "pfc-head-of-line", Topic: "PFC and head-of-line blocking", Minutes: 20},
	{Name: "tuning-dcqcn", Topic: "Tuning DCQCN", Minutes: 30},
	{Name: "pfc-storm", Topic: "PFC storm and the watchdog", Minutes: 25},
	{Name: "deadlock", Topic: "Deadlock", Minutes: 30},
	{Name: "infiniband", Topic: "InfiniBand credits against PFC", Minutes: 30},
	{Name: "connecting", Topic: "Connecting: rdma_cm and rping", Minutes: 25},
	{Name: "lossless-or-not", Topic: "Do we need a lossless network?", Minutes: 30},
	{Name: "ecmp-polarisation", Topic: "Load balancing", Minutes: 30},
	{Name: "ai-training", Topic: "AI training traffic on a lossless fabric", Minutes: 30},
}
