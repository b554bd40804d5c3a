// Package scaleup models a GPU server's scale-up domain: the NVLink
// ports of its GPUs and the NVSwitch chips that join them, as a
// non-blocking switch of its own rate and delay beside the network.
// Collectives move data between two GPUs of one server through it
// instead of through their NICs (NCCL's P2P transport over NVLink).
//
// The model (Domain): each GPU has one port into the switch, whose
// egress and ingress each serialize at the domain's Rate (the GPU's
// NVLink bandwidth per direction: 18 NVLink 4 links of 25 GB/s each way,
// 450 GB/s, on an H100 SXM5 (NVIDIA H100 Tensor Core GPU datasheet:
// "NVLink: 900GB/s" bidirectional); the resolved ScaleUp says what a
// topology gives). A transfer of n bytes from GPU a to GPU b asked for
// at time t leaves a's egress as soon as it is free, during
// [s, s+n/Rate) with s = max(t, when a's egress frees); the switch passes
// it to b's ingress, which takes it during [r, r+n/Rate) with
// r = max(s, when b's ingress frees); its last byte lands Delay after
// it left the switch, at r + n/Rate + Delay. So a GPU's sends to several
// peers share its egress, and several GPUs' sends to one peer share its
// ingress (an all-to-all's incast inside the server), each at Rate.
//
// Limits: the switch is output-queued with an unbounded buffer (a
// transfer that waits for a busy ingress waits inside the switch, and
// its sender's egress goes on with the next): NVSwitch's link-level
// flow control, its limited buffering and the split of a GPU's
// bandwidth over its 18 links are not modelled; nor is NVLink SHARP
// (in-switch reductions, NCCL's NVLS algorithm); a transfer has no
// packets (one transfer, one arrival), and no bytes are lost.
//
// A Domain is one server's and is touched only by events of that
// server's GPUs, which a run keeps in one partition (resolve.Server):
// its state needs no hand-over. It imports only sim and fabric.
package scaleup
