// Package collective models collectives as NCCL runs them: a
// communicator's ranks and connections (Comm: rings, laid on the rails
// of GPU servers, with PXN relays), an operation's steps (Plan: each
// rank's streams, computed step by step, never stored), NCCL's
// protocols (their step sizes, wire efficiency and latencies, from
// NCCL's own tables) and a rank's state machine (Rank), which the
// engine drives: a step is sent once what it needs has arrived and a
// slot of its connection is free, and a rank tells its Transport to
// carry it. The runner (assembly) carries a step between servers as an
// RDMA WRITE with immediate on the connection's QPs, and inside a
// server through its scale-up domain (package scaleup).
//
// What is modelled: the data each step moves and when it may move
// (data dependencies, NCCL's loops and chunks, NCCL_STEPS slots per
// connection), the bytes a protocol puts on the wire, NCCL's base
// latency per call and its per-step latency less what the simulated
// path takes itself, and a channel's pace over NVLink: a ring's or a
// tree's channel (its thread block) pays a step's NVLink latency and
// then moves its step at its share of the GPU's NVLink (the scale-up
// rate over the channels), one after the other, so that the latency is
// not hidden under the other channels' transfers (Rank.SetPace; a
// tree's channel runs its reduce up and its broadcast down as two
// streams, runTreeSplit's two thread groups, and each is paced on its
// own at the channel's share). What
// is not: the GPU's compute (a reduction is free), its memory bandwidth
// and the protocols' GPU-side throughput caps (NCCL's llMaxBw and
// per-channel LL128 caps), the proxy thread's
// CPU, NCCL's topology search (rings are laid out as its result on
// rails is, not searched), and a receiver's buffer credits as messages
// (a sender's slot is freed by its work request's completion, which the
// receiver's ACK brings, standing in for NCCL's clear-to-send).
//
// It imports only sim and fabric: no HCA, no scenario file.
package collective
