package netplay

// Spectators: a host (a player's session with Config.Spectators set) sends every final tick's
// inputs of every player to the spectators that join it; a spectator (NewSpectator) runs the
// game behind them, never sending input, catching up when it falls behind.

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Spectator limits and pace.
const (
	// MaxSpectators is the most spectators a host accepts (Config.Spectators).
	MaxSpectators = 16
	// SpectatorHistory is how long a host keeps the inputs of final ticks for its
	// spectators, in seconds of game time: a spectator may join during the first ten
	// minutes of a game (it starts from the first tick and catches up), and one that falls
	// further behind is dropped.
	SpectatorHistory = 10 * 60
	// spectatorMaxBehind is how many ticks received a spectator may leave unrun before it
	// catches up, spectatorCatchUp ticks an Advance.
	spectatorMaxBehind = 10
	spectatorCatchUp   = 8
)

// NewSpectator returns a spectator session of the game hosted at host, a player's peer whose
// session accepts spectators (Config.Spectators), over conn. players is the number of
// players of the game; cfg gives the Codec and the protocol's settings, and its Players must
// be empty (the host's are the players). A spectator adds no input and never rolls back: each
// Advance returns the requests of the next tick whose inputs have all arrived from the host
// (Advance and Save; tick 0's Save first), or of up to 8 ticks at once while it is more than
// 10 ticks behind what it has received (Stats.Behind), and ErrPredictionThreshold while it
// waits. Its checksums are compared with the host's (EventDesync). If the host refuses it (its
// spectators are all there, or its game is past the first SpectatorHistory seconds), Advance
// returns an error wrapping ErrRefused; once the host is lost (it closed its session, or went
// unheard for DisconnectTimeout), the ticks received still run, and then Advance returns an
// error wrapping ErrDisconnected.
func NewSpectator[I comparable](conn net.PacketConn, host net.Addr, players int, cfg Config[I]) (*Session[I], error) {
	if len(cfg.Players) != 0 {
		return nil, fmt.Errorf("netplay: NewSpectator: Config.Players = %d players: a spectator's must be empty (the host's are the players)", len(cfg.Players))
	}
	if cfg.Relay != nil {
		if host != nil && !sameAddr(host, cfg.Relay) {
			return nil, fmt.Errorf("netplay: NewSpectator: host %v and Config.Relay %v: a relayed match's spectator names the relay only (host nil, or the relay)", host, cfg.Relay)
		}
		host = nil
	} else if host == nil {
		return nil, errors.New("netplay: NewSpectator: host is nil")
	}
	if players < 2 || players > MaxPlayers {
		return nil, fmt.Errorf("netplay: NewSpectator: players = %d: a game has 2 to %d", players, MaxPlayers)
	}
	if cfg.Spectators != 0 {
		return nil, fmt.Errorf("netplay: NewSpectator: Config.Spectators = %d: a spectator hosts none", cfg.Spectators)
	}
	if cfg.InputDelay != 0 || cfg.PredictionWindow != 0 || cfg.Lockstep {
		return nil, errors.New("netplay: NewSpectator: a spectator has no InputDelay, PredictionWindow or Lockstep: it runs only ticks whose inputs have all arrived")
	}
	cfg.Players = make([]Player, players)
	for h := range cfg.Players {
		cfg.Players[h] = Player{Addr: host}
	}
	cfg.spectate = true
	return NewSession(conn, cfg)
}

// historyTicks is how many final ticks a host keeps for its spectators.
func (s *Session[I]) historyTicks() uint64 { return uint64(SpectatorHistory * s.cfg.TickRate) }

// keepHistory copies the inputs of final tick t, every player's, into the spectators'
// history: zeros for a player disconnected by then.
func (s *Session[I]) keepHistory(t uint64) {
	stride := uint64(len(s.queues) * s.size)
	dst := s.history[(t%s.historyTicks())*stride:][:stride]
	for h, q := range s.queues {
		b := dst[h*s.size:][:s.size]
		if q.gone && t > q.goneAfter {
			clear(b)
			continue
		}
		copy(b, q.raw[(t%ring)*uint64(s.size):][:s.size])
	}
}

// admitSpectator returns a new spectator for the sender of p, a spectator's handshake
// request, or nil if this peer hosts none, has no room, or is past the history a spectator
// starts from.
func (s *Session[I]) admitSpectator(p *packet) *peer {
	if s.cfg.Spectators == 0 || len(s.spectators) >= s.cfg.Spectators || s.finalDone >= s.historyTicks() {
		return nil
	}
	var b [4]byte
	if _, err := io.ReadFull(s.rnd, b[:]); err != nil {
		return nil
	}
	addr, ap := p.addr, p.ap
	if ap.IsValid() {
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		addr = net.UDPAddrFromAddrPort(ap)
	}
	pr := &peer{addr: addr, ap: ap, first: -1, spectator: true, nonce: binary.LittleEndian.Uint32(b[:]) | 1}
	pr.stats.Status = Confirmed
	s.spectators = append(s.spectators, pr)
	s.tr.admit(addr, ap)
	return pr
}

// spectatorRoom reports whether a new spectator may join, or why not: wire.DroppedFull,
// wire.DroppedLate, or 0 for a host that takes no spectators.
func (s *Session[I]) spectatorRoom() (why uint8, ok bool) {
	switch {
	case s.cfg.Spectators == 0:
		return 0, false
	case len(s.spectators) >= s.cfg.Spectators:
		return wire.DroppedFull, false
	case s.finalDone >= s.historyTicks():
		return wire.DroppedLate, false
	}
	return 0, true
}

// cookieLife is how long a cookie proves an address: the epoch it was made in and the next.
const cookieLife = 10 * time.Second

// cookie returns the cookie of the spectator's handshake from p in session nonce, made in
// epoch: a keyed hash of the address, the nonce and the epoch, never 0. It allocates nothing
// for a UDP address.
func (s *Session[I]) cookie(p *packet, nonce uint32, epoch int64) uint32 {
	var b [16 + 18 + 4 + 8]byte
	copy(b[:16], s.cookieKey[:])
	if p.ap.IsValid() {
		a := p.ap.Addr().Unmap().As16()
		copy(b[16:32], a[:])
		binary.LittleEndian.PutUint16(b[32:], p.ap.Port())
	} else {
		copy(b[16:34], p.addr.String())
	}
	binary.LittleEndian.PutUint32(b[34:], nonce)
	binary.LittleEndian.PutUint64(b[38:], uint64(epoch))
	sum := sha256.Sum256(b[:])
	return binary.LittleEndian.Uint32(sum[:]) | 1
}

// validCookie reports whether the spectator's handshake m from p echoes a cookie this host made
// for it lately: its address is proven, as DTLS and QUIC prove a client's.
func (s *Session[I]) validCookie(p *packet, m *wire.Message) bool {
	epoch := int64(s.now / cookieLife)
	return m.Cookie != 0 && (m.Cookie == s.cookie(p, m.Session, epoch) || m.Cookie == s.cookie(p, m.Session, epoch-1))
}

// sendCookie answers the handshake m from p, an address not proven yet, with a cookie to echo:
// a packet smaller than the request, and nothing else, so that a forged sender address takes
// no place and gains an attacker nothing.
func (s *Session[I]) sendCookie(p *packet, m *wire.Message) {
	s.out = wire.Message{}
	s.out.Kind, s.out.Session = wire.KindCookie, m.Session
	s.out.Cookie = s.cookie(p, m.Session, int64(s.now/cookieLife))
	s.answer(p, &s.out)
}

// dropSpectator lets spectator pr go, telling it why (wire.DroppedSilent, wire.DroppedLate; 0
// for one that said goodbye: nothing to tell).
func (s *Session[I]) dropSpectator(pr *peer, why uint8) {
	if why != 0 && pr.session != 0 {
		for range byeCopies {
			s.out = wire.Message{}
			s.out.Kind, s.out.Cutoff, s.out.DropFlags = wire.KindDropped, wire.NoTick, why
			s.send(pr, &s.out)
		}
	}
	pr.state = peerGone
	for i, sp := range s.spectators {
		if sp == pr {
			s.spectators = append(s.spectators[:i], s.spectators[i+1:]...)
			break
		}
	}
	s.tr.dismiss(pr.addr, pr.ap)
}

// handleSpectator handles a message from spectator pr once its handshake is done.
func (s *Session[I]) handleSpectator(pr *peer, m *wire.Message) bool {
	switch m.Kind {
	case wire.KindInput, wire.KindInputAck:
		if m.AckTick > 0 && uint64(m.AckTick) > pr.acked && uint64(m.AckTick) <= s.finalDone {
			pr.acked = uint64(m.AckTick)
		}
	case wire.KindQualityReport:
		s.out = wire.Message{}
		s.out.Kind, s.out.PingSent = wire.KindQualityReply, m.PingSent
		s.send(pr, &s.out)
	case wire.KindBye:
		s.dropSpectator(pr, 0)
	}
	return true
}

// spectatorTimers runs the spectators' handshakes, drops those unheard for the timeout or
// fallen past the history, and sends each the final ticks it has not acknowledged.
func (s *Session[I]) spectatorTimers() {
	for i := 0; i < len(s.spectators); i++ {
		pr := s.spectators[i]
		switch {
		case pr.state == peerSyncing:
			if !pr.syncStarted || s.now-pr.syncSentAt >= syncRetry {
				pr.syncStarted = true
				s.syncRequest(pr)
			}
			if s.awake-pr.lastHeard >= s.cfg.DisconnectTimeout {
				s.dropSpectator(pr, wire.DroppedSilent)
				i--
			}
		case s.awake-pr.lastHeard >= s.cfg.DisconnectTimeout:
			s.dropSpectator(pr, wire.DroppedSilent)
			i--
		case pr.acked+s.historyTicks() <= s.finalDone:
			s.dropSpectator(pr, wire.DroppedLate)
			i--
		case pr.acked < s.finalDone || s.now-pr.lastSent >= keepAliveInterval:
			s.sendSpectator(pr)
		}
	}
}

// spectatorsHave returns the least tick up to which every spectator served has acknowledged
// receiving the inputs, and how many spectators are served.
func (s *Session[I]) spectatorsHave() (least uint64, n int) {
	for _, pr := range s.spectators {
		if pr.state == peerRunning {
			if n == 0 || pr.acked < least {
				least = pr.acked
			}
			n++
		}
	}
	return least, n
}

// sendSpectator sends spectator pr the final ticks it has not acknowledged, as many as fit,
// with every player's status.
func (s *Session[I]) sendSpectator(pr *peer) {
	n := len(s.queues)
	m := &s.out
	*m = wire.Message{}
	m.Kind = wire.KindInput
	m.Handles = wire.HandleSet(1<<n - 1)
	m.InputSize = s.size
	m.AckTick = wire.NoTick
	m.Players = n
	for h, q := range s.queues {
		m.Status[h] = wire.PlayerStatus{Disconnected: q.gone, LastTick: int64(q.status())}
	}
	start := pr.acked + 1
	m.StartTick = int64(start)
	if s.finalDone >= start {
		stride := uint64(n * s.size)
		ticks := min(s.finalDone-start+1, wire.MaxTicksPerInput)
		ref := s.specRef
		if start == 1 {
			clear(ref)
		} else {
			copy(ref, s.history[((start-1)%s.historyTicks())*stride:][:stride])
		}
		raw := s.specBuf[:0]
		for t := start; t < start+ticks; t++ {
			raw = append(raw, s.history[(t%s.historyTicks())*stride:][:stride]...)
		}
		if _, err := m.PackInputs(ref, raw); err != nil {
			s.stats.SendErrors++
			return
		}
	}
	s.send(pr, m)
}

// hostStatus takes what a spectator's host says of player h: disconnected after a tick.
func (s *Session[I]) hostStatus(h int, st wire.PlayerStatus) {
	if !st.Disconnected {
		return
	}
	q, last := s.queues[h], uint64(max(st.LastTick, 0))
	switch {
	case !q.gone || q.vacant:
		q.gone, q.goneAfter, q.vacant = true, last, false
		s.event(Event{Kind: EventDisconnected, Handle: h, Tick: last, Reason: "the host disconnected it"})
	case last < q.goneAfter:
		q.goneAfter = last
	}
}

// advanceSpectator is Advance for a spectator: the next tick whose inputs have all arrived,
// or several while it is behind.
func (s *Session[I]) advanceSpectator() ([]Request[I], error) {
	s.reqs = s.reqs[:0]
	if s.relay != nil {
		// Through a relay, a spectator may start from a state snapshot: it waits for it,
		// then loads it.
		if d := s.relay.snap.down; d != nil && !d.ready() {
			return nil, ErrNotSynchronized
		}
		s.snapRestore()
	}
	limit := s.limit()
	if limit <= s.tick {
		if len(s.reqs) > 0 {
			return s.reqs, nil // the snapshot loaded, and no tick yet
		}
		if s.hostErr != nil {
			return nil, s.hostErr // every tick received has run
		}
		s.stats.Skipped++
		return nil, ErrPredictionThreshold
	}
	ticks := uint64(1)
	if limit-s.tick > spectatorMaxBehind {
		ticks = spectatorCatchUp
	}
	if s.tick == 0 {
		s.reqs = append(s.reqs, Request[I]{Kind: Save, Tick: 0, Slot: 0})
	}
	used := 0
	for ; ticks > 0 && s.tick < limit; ticks-- {
		used = s.advanceRequest(s.tick+1, used)
		s.tick++
	}
	s.final = min(s.confirmed(), s.tick)
	return s.reqs, nil
}

// spectatorDropped takes the host's word that it refused or dropped this spectator, and why.
func (s *Session[I]) spectatorDropped(pr *peer, m *wire.Message) {
	var why string
	switch {
	case m.DropFlags&wire.DroppedFull != 0:
		why = "it has all the spectators it takes"
	case m.DropFlags&wire.DroppedLate != 0 && pr.state == peerSyncing:
		why = fmt.Sprintf("its game is past the first %v, the time a spectator may join in", SpectatorHistory*time.Second)
	case m.DropFlags&wire.DroppedLate != 0:
		why = fmt.Sprintf("this spectator fell %v behind the game", SpectatorHistory*time.Second)
	case m.DropFlags&wire.DroppedSilent != 0:
		why = fmt.Sprintf("the host did not hear this spectator for %v", s.cfg.DisconnectTimeout)
	default:
		why = "it takes no spectators"
	}
	switch {
	case pr.state == peerSyncing && m.Session == pr.nonce:
		if s.endErr == nil {
			s.endErr = fmt.Errorf("%w: the host at %v refused this spectator: %s", ErrRefused, pr.addr, why)
		}
	case pr.state == peerRunning && m.Session == pr.session:
		s.hostErr = &HostLostError{Reason: "it dropped this spectator: " + why}
		s.lose(pr, "it dropped this spectator")
	}
}

// spectatorLost notes that a spectator's host is lost: its session ends once it has run every
// tick it received.
func (s *Session[I]) spectatorLost(why string) {
	if s.hostErr == nil {
		s.hostErr = &HostLostError{Reason: why}
	}
}

// HostLostError is the error a spectator's Advance returns once its host is lost and every
// tick it received has run. It wraps ErrDisconnected.
type HostLostError struct {
	// Reason says why: ReasonLeft if the host closed its session, "unheard for 2s" if it
	// stopped answering, "it dropped this spectator: ..." with the host's reason (it did not
	// hear this spectator for the timeout, or the spectator fell behind the ticks it keeps).
	Reason string
}

func (e *HostLostError) Error() string {
	return ErrDisconnected.Error() + ": the host (" + e.Reason + ")"
}

// Unwrap returns ErrDisconnected.
func (e *HostLostError) Unwrap() error { return ErrDisconnected }
