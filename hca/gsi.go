package hca

// QP1, the general services interface's QP (IBTA vol. 1, 13.5.1): the QP
// a host's management datagrams come and go on, the connection
// manager's MADs and the subnet administrator's. The HCA does not read
// them: QP1 is a UD QP as any other, with a well-known number and Q_Key,
// and its owner (package cm, the host's connection manager) posts its
// MADs on it and takes them from its CQ through the verbs. What the HCA
// needs of the owner is QP1 itself when a MAD comes before anyone has
// made it: the kernel's CM is always there, so a REQ to a host whose
// CM nobody asked for is still answered (with a REJ when nobody
// listens). The owner is made then, or when a program first asks for
// it, with Profile.NewGSIAgent. A host with neither drops MADs as
// packets for a QP that does not exist (Stats.BadQPDrops).

// GSIQPN is QP1's number and GSIQKey its well-known Q_Key (IBTA vol. 1,
// 13.5.1).
const (
	GSIQPN  = 1
	GSIQKey = 0x80010000
)

// GSIAgent owns a host's QP1: package cm's connection manager.
type GSIAgent interface {
	// QP1 returns the agent's QP1, made (CreateQP1) and moved to RTS the
	// first time it is asked for.
	QP1() *QP
}

// SetGSIAgent makes a the owner of the HCA's QP1.
func (h *HCA) SetGSIAgent(a GSIAgent) { h.coldPart().gsi = a }

// GSIAgent returns the owner of the HCA's QP1, nil when none has been
// made or set.
func (h *HCA) GSIAgent() GSIAgent {
	if h.cold == nil {
		return nil
	}
	return h.cold.gsi
}

// CreateQP1 makes QP1 with caps c, in RESET (ibv_create_qp, for the
// GSI QP the kernel's MAD layer makes): its owner moves it to RTS with
// GSIQKey.
func (h *HCA) CreateQP1(c QPCaps) *QP { return h.newQP(GSIQPN, c) }

// qp1 is QP1 for a MAD that came before it existed, made by its owner,
// which Prof.NewGSIAgent makes first when there is none; nil without
// either.
func (h *HCA) qp1() *QP {
	a := h.GSIAgent()
	if a == nil {
		if h.Prof.NewGSIAgent == nil {
			return nil
		}
		a = h.Prof.NewGSIAgent(h)
		h.SetGSIAgent(a)
	}
	return a.QP1()
}
