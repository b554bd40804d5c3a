// Package hca models an RDMA NIC (host channel adapter) and the verbs it
// runs: queue pairs, work requests, segmentation into packets with PSNs,
// ACKs and retransmission, and the transmit arbiter that feeds the port.
package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Retransmit is how an RC requester recovers lost packets.
type Retransmit uint8

// Retransmission schemes.
const (
	GoBackN   Retransmit = iota // resend from the first unacknowledged PSN (InfiniBand spec)
	GoBack0                     // resend the whole message (early RoCE NICs)
	Selective                   // resend only what was lost (IRN, SIGCOMM 2018)
)

func (r Retransmit) String() string {
	return [...]string{"go-back-n", "go-back-0", "selective"}[r]
}

// Profile is one NIC's configuration. Defaults in DefaultProfile resemble a
// 100 Gb/s ConnectX-class NIC; each field says its source.
type Profile struct {
	// MTU is the InfiniBand path MTU, payload bytes per packet: 256, 512,
	// 1024, 2048 or 4096. Default 4096 (RoCEv2 deployments with 9000-byte
	// Ethernet frames).
	MTU int
	// Priority is the 802.1p priority of data packets. Default 3.
	Priority uint8
	// Retransmit is the RC recovery scheme. Default go-back-N.
	Retransmit Retransmit
	// AckTimeout is the local ACK timeout exponent: 4.096 µs × 2^AckTimeout
	// (InfiniBand spec, C9-140). Default 14 (67 ms), as perftest sets.
	AckTimeout int
	// RetryCount is how many timeouts or NAKs an RC QP retries before
	// completing with retry_exc_err. Default 7, the maximum.
	RetryCount int
	// RNRRetry is the receiver-not-ready retry count (7 means infinite).
	RNRRetry int
	// MaxRdAtomic is the number of outstanding READ/ATOMIC requests.
	// Default 16, ConnectX-5's limit.
	MaxRdAtomic int
	// RxRate is the receive drain rate; 0 means line rate.
	RxRate fabric.Rate
	// AckEvery is how many packets the requester sends between AckReq
	// bits (the last packet of a message always asks). Default 16.
	AckEvery int
	// CC is the congestion control: "none" (PFC only), "dcqcn", "hpcc",
	// "timely". Default "none" until the congestion models land.
	CC string
	// CCParams holds congestion-control parameters by NVIDIA's names, as
	// the scenario gave them.
	CCParams map[string]string
}

// AckTimeoutDuration is the local ACK timeout: 4.096 µs × 2^AckTimeout.
func (p Profile) AckTimeoutDuration() sim.Time {
	if p.AckTimeout <= 0 {
		return 0 // 0 means infinite in the spec; callers treat 0 as off
	}
	return 4096 * sim.Nanosecond << uint(p.AckTimeout)
}

// DefaultProfile returns the documented defaults.
func DefaultProfile() Profile {
	return Profile{
		MTU:         4096,
		Priority:    3,
		Retransmit:  GoBackN,
		AckTimeout:  14,
		RetryCount:  7,
		RNRRetry:    7,
		MaxRdAtomic: 16,
		AckEvery:    16,
		CC:          "none",
	}
}
