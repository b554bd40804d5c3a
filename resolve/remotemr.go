package resolve

import (
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/scenario"
)

// RemoteMR is flow.remote_mr: how the responder registers the flow's
// region (ibv_reg_mr), and the key the flow's requests carry.
type RemoteMR struct {
	Access hca.Access
	// Length is the region's size; 0 means the flow's.
	Length int64
	// BadRKey: the requests carry a key no region has. OtherPD: the
	// region is in a protection domain other than the responder QP's.
	BadRKey, OtherPD bool
}

// accessFlags are ibv_access_flags by their verbs names.
var accessFlags = map[string]hca.Access{
	"local_write": hca.AccessLocalWrite, "remote_write": hca.AccessRemoteWrite,
	"remote_read": hca.AccessRemoteRead, "remote_atomic": hca.AccessRemoteAtomic,
}

// flowExtras reads flow.messages, flow.post_list, flow.recv_at and
// flow.remote_mr into f.
func (b *builder) flowExtras(g *scenario.FlowS, path string, f *Flow) {
	b.flowDSCP(g, path, f)
	if g.Messages.Set {
		m := g.Messages.V
		lim := min(b.s.HCAProfile(f.Src).MaxSendWR, b.s.HCAProfile(f.Dst).MaxRecvWR)
		maxMsg := max(1, min(b.s.HCAProfile(f.Src).MaxMsgSize, b.s.HCAProfile(f.Dst).MaxMsgSize))
		switch {
		case m > f.Size:
			b.errorf(g.Messages.Pos, path+".messages", "%d messages of a %d-byte flow would leave some empty: at most one per byte", m, f.Size)
		case (f.Size+m-1)/m > maxMsg:
			b.errorf(g.Messages.Pos, path+".messages", "%d messages of a %d-byte flow are over the HCA's largest message (max_msg_sz %d bytes): at least %d",
				m, f.Size, maxMsg, (f.Size+maxMsg-1)/maxMsg)
		case m > int64(lim):
			b.errorf(g.Messages.Pos, path+".messages", "%d messages do not fit one QP's queues (max_send_wr %d, max_recv_wr %d)",
				m, b.s.HCAProfile(f.Src).MaxSendWR, b.s.HCAProfile(f.Dst).MaxRecvWR)
		default:
			f.Messages = int32(m)
		}
	}
	if g.PostList.Set {
		if n := f.WorkRequests(b.s.HCAProfile(f.Src).MaxMsgSize, b.s.HCAProfile(f.Dst).MaxMsgSize); g.PostList.V > n {
			b.errorf(g.PostList.Pos, path+".post_list", "post_list %d is longer than the flow's %d work requests (messages, or the parts max_msg_sz cuts it into)", g.PostList.V, n)
		} else {
			f.PostList = int32(g.PostList.V)
		}
	}
	if g.RecvAt.Set {
		if f.Op != "send" && f.Op != "write_imm" {
			b.errorf(g.RecvAt.Pos, path+".recv_at", "a %s consumes no RECV: recv_at goes with op: send or write_imm", f.Op)
		}
		f.RecvAt = g.RecvAt.V
	}
	r := &g.RemoteMR
	if !r.Set {
		return
	}
	at := g.KeyPos("remote_mr")
	if f.Op == "send" || f.QP == "ud" {
		b.errorf(at, path+".remote_mr", "a SEND names no remote region: the responder's posted RECV says where it lands (remote_mr goes with op: write, write_imm, read or atomic)")
		return
	}
	m := &RemoteMR{Access: hca.AccessAll, BadRKey: r.RKey.V == "invalid", OtherPD: r.PD.V == "other"}
	if r.Has("access") {
		m.Access = 0
		for _, a := range r.Access {
			m.Access |= accessFlags[a.V]
		}
		// ibv_reg_mr(3): "If IBV_ACCESS_REMOTE_WRITE or
		// IBV_ACCESS_REMOTE_ATOMIC is set, then IBV_ACCESS_LOCAL_WRITE
		// must be set too" (it returns EINVAL).
		if m.Access&(hca.AccessRemoteWrite|hca.AccessRemoteAtomic) != 0 && m.Access&hca.AccessLocalWrite == 0 {
			b.errorf(r.KeyPos("access"), path+".remote_mr.access", "ibv_reg_mr refuses remote_write or remote_atomic without local_write (EINVAL): add local_write")
		}
	}
	overrideNum(&m.Length, r.Length)
	f.Remote = m
}
