package kind

// ReceiverCC is one receiver-driven congestion control an Ultra Ethernet
// (UET) receiver can run beside its sender's (hca.uet.receiver_credits):
// the receiver grants the sender credit to send, and the sender sends no
// more than it was granted. Its row of the table, which the model that
// implements it registers (RegisterReceiverCC); receiver_credits: true
// runs the table's first row.
type ReceiverCC struct {
	// Name is the control's name in messages and the docs (rccc).
	Name string
	// Title is the name as its specification writes it (RCCC).
	Title string
	// Doc is one line for the docs: what it does and its source.
	Doc string
}

var receiverCCs = table[ReceiverCC]{name: func(r ReceiverCC) string { return r.Name }}

// RegisterReceiverCC adds r to the table, after those registered before
// it. A second row with the same name panics.
func RegisterReceiverCC(r ReceiverCC) (unregister func()) {
	return receiverCCs.register("receiver congestion control", r, func(n string) bool { return n != "" })
}

// ReceiverCCs is the table, in registration order.
func ReceiverCCs() []ReceiverCC { return receiverCCs.all() }
