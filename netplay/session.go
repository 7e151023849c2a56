package netplay

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Protocol timings.
const (
	// syncRoundTrips is how many handshake round trips must succeed before a peer counts as
	// synchronized.
	syncRoundTrips = 5
	// syncRetry is how long the handshake waits for a reply before it sends another request.
	syncRetry = 200 * time.Millisecond
	// qualityInterval is how often a peer reports its round trip and ticks ahead.
	qualityInterval = 200 * time.Millisecond
	// keepAliveInterval is the longest a peer goes without sending anything to another.
	keepAliveInterval = 200 * time.Millisecond
	// aheadSamples is the number of ticks the ticks-ahead estimate is averaged over (the
	// weight of an exponential moving average: 1/aheadSamples).
	aheadSamples = 32
	// scalePerTick is how much slower the loop runs for each tick this peer is ahead.
	scalePerTick = 0.05
	// aheadDeadZone is how far ahead, in ticks, a peer may be before it slows down at all.
	aheadDeadZone = 0.25
	// inputRedundancy is how many packets in a row carry each tick of local input, at the
	// least: a packet lost costs nothing unless that many are lost in a row.
	inputRedundancy = 8
	// maxPacketsPerPoll is the most packets one Poll takes: thousands of ticks' worth.
	maxPacketsPerPoll = 4096
	// refusalInterval is the least time between two refusals of a stranger's handshake.
	refusalInterval = 20 * time.Millisecond
)

// ring is how many ticks of inputs each player's queue holds. A session goes back at most
// 2*MaxPredictionWindow+1 ticks (see confirmed); a peer's inputs run at most its InputDelay
// past its tick, which runs at most 2*MaxPredictionWindow past our inputs, themselves at most
// our InputDelay past our tick: 2*(MaxInputDelay+MaxPredictionWindow) = 180 ticks ahead.
// Inputs up to ring/2 ahead are taken (further ones cannot be a peer's), and ring/2 behind
// covers the deepest rollback.
const ring = 512

// checksumHistory is how many of its own reported checksums a peer keeps, and how many of a
// peer's reports it holds until it has its own, for desync detection.
const checksumHistory = 32

// peerState is where the connection with a peer stands.
type peerState uint8

const (
	peerSyncing peerState = iota
	peerRunning
	peerGone
)

// player is one player's queue of inputs.
type player[I comparable] struct {
	local bool
	peer  int // index of its peer in Session.peers; -1 for a local player
	// in holds the confirmed inputs by tick (mod ring), raw the same encoded.
	in  [ring]I
	raw []byte // ring*size bytes
	// used holds the input each tick last ran with, to find a misprediction.
	used [ring]PlayerInput[I]
	// confirmed is the last tick up to which every input is known (local: added).
	confirmed uint64
	// gone is set once the player is disconnected; its inputs after goneAfter are Disconnected.
	gone      bool
	goneAfter uint64
	// Through a relay that takes late joins: vacant marks a slot nobody has joined yet (gone
	// after 0 until then); joinedAt is the first tick of the input of a player that joined
	// late, its inputs before Disconnected (0: there from the start).
	vacant   bool
	joinedAt uint64
}

// status returns the last tick of the player's input known here, as reported to the peers:
// the tick after which it is disconnected, once it is.
func (q *player[I]) status() uint64 {
	if q.gone {
		return q.goneAfter
	}
	return q.confirmed
}

// checksum is a checksum of a confirmed tick.
type checksum struct {
	tick, sum uint64
}

// peer is the connection with one remote machine, which may have several players.
type peer struct {
	addr    net.Addr
	ap      netip.AddrPort
	handles wire.HandleSet
	first   int // its first handle, for events
	state   peerState

	// The handshake.
	nonce       uint32 // ours for this connection (Session of our sync messages)
	theirNonce  uint32
	session     uint32                     // agreed from both nonces; 0 until then
	syncNonces  [2 * syncRoundTrips]uint32 // the nonces of the last requests not yet answered
	syncNonce   uint32                     // the last nonce sent
	syncSentAt  time.Duration
	syncDone    int
	syncStarted bool

	// Sending.
	seq         uint16
	acked       uint64 // our inputs it has, up to this tick
	lastSent    time.Duration
	lastInput   time.Duration // when the last Input was sent
	lastQuality time.Duration
	lastAckSent uint64

	// Receiving: lastHeard is when it was last heard on the session's awake clock (which
	// does not count the time this peer stalled: see Poll), heardAt on its own clock.
	lastHeard   time.Duration
	heardAt     time.Duration
	interrupted bool
	newest      uint64 // the newest tick of its inputs seen
	newestAt    time.Duration

	// Time sync: rtt is the round trip averaged, lastRTT the last measured.
	rtt         time.Duration
	lastRTT     time.Duration
	haveRTT     bool
	aheadLocal  float64 // our estimate of how far we run ahead of it, averaged
	aheadRemote float64 // its estimate of how far it runs ahead of us, as reported
	haveAhead   bool

	// reported is how far it reports having each other player's input (Input.Status), the
	// most it reported while the player was connected; statusSent is what we last reported
	// to it.
	reported   [MaxPlayers]uint64
	statusSent [MaxPlayers]wire.PlayerStatus
	// What it reports of the players it has disconnected, and of the peers it hears (see
	// membership.go): dropped, the players it has disconnected, each after dropAfter (the
	// least it reported); lostBy, the players whose peer it has lost; quiet, those whose
	// peer it has not heard from for its notice (its newest report, by quietSeq).
	dropped   wire.HandleSet
	dropAfter [MaxPlayers]uint64
	lostBy    wire.HandleSet
	quiet     wire.HandleSet
	quietSeq  uint16
	reportAt  time.Duration // when its newest report arrived
	lostSent  wire.HandleSet
	quietSent wire.HandleSet
	// quietAt is when the newest of its reports that had each player's peer quiet or lost
	// arrived; hearsSince, when the first of the reports since then that have it heard did
	// (0 while the newest has it quiet). They tell a stall from a cut link (membership.go).
	quietAt    [MaxPlayers]time.Duration
	hearsSince [MaxPlayers]time.Duration
	// noticeAt is when we last told it, lost, that we lost it (KindDropped).
	noticeAt time.Duration

	// recvd is the last tick up to which we have every input it sends.
	recvd uint64
	// spectator marks a spectator of this peer's (spectate.go); cookie is, at a spectator,
	// the host's cookie to echo in its handshake.
	spectator bool
	cookie    uint32

	// lostAt and lostWhy: when and why we lost it (state peerGone).
	lostAt   time.Duration
	lostWhy  string
	left     bool // it said goodbye, or was kicked: every peer loses it, not a cut link
	kicked   bool // disconnected by hand, here or by another peer
	timedOut bool // lost for being unheard for the timeout

	// sumResent is the tick of the last of our checksums sent to it a second time.
	sumResent uint64

	// Desync detection: its reports not yet compared.
	theirSums [checksumHistory]checksum
	desynced  uint64 // the tick of the last desync reported, to report each once

	stats PeerStats
}

// Session is a rollback session between peers over a net.PacketConn: see the package
// documentation for the model. Make one with NewSession on every peer, with the same players in
// the same order; then, every tick, add the local players' input and Advance, carrying out the
// requests returned (Run does it for a Game; NewLoopGame does all of it from a loop's Update).
//
// A session reads no clock: the time is passed to Poll and Advance, as durations since any
// origin that does not go backwards (Loop.Clock().Now(), say). Its methods must be called from
// one goroutine; in steady state Poll, AddLocalInput and Advance allocate nothing.
//
// A UDPConn (ListenUDP) is read on Linux from the session's own calls (Poll, Advance) with one
// recvmmsg for the packets waiting, and written with one sendmmsg at the end of each call: system
// calls made directly, on a socket outside the Go runtime's network poller, the cheapest way.
// A *net.UDPConn is read on Linux from the session's own calls too, with one non-blocking read
// of its socket per packet waiting: no goroutine, nothing woken per packet, and no allocation;
// the socket's receive buffer holds what arrives between two calls. So is a
// conn with a method TryReadFrom(p []byte) (n int, addr net.Addr, ok bool) that returns at once
// (the in-memory Conn of package netsim has one), so that a test on simulated time is
// deterministic. Any other conn is read by one goroutine into a fixed ring of buffers: packets
// from addresses that are no peer's are dropped before they take a place in it, and packets
// that arrive while it is full are dropped (and counted) as a full socket buffer would drop
// them. Close stops it.
type Session[I comparable] struct {
	cfg     Config[I]
	codec   Codec[I]
	size    int // encoded input size
	window  int
	depth   int // the deepest rollback: the window, or twice it with three peers or more
	delay   int
	slots   int
	players []Player
	queues  []*player[I]
	peers   []*peer
	local   wire.HandleSet // our local handles
	nlocal  int
	tr      *transport
	zero    I // the zero input: what Disconnected players give
	decoded I // Get of zero bytes: the input before any (ticks up to the delay)

	// Spectators (spectate.go): the spectators this peer hosts, the inputs kept for them
	// and the memory to pack them; spectating is set on a spectator's session.
	spectators       []*peer
	history          []byte
	specBuf, specRef []byte
	spectating       bool
	relay            *relayLink[I] // a relayed session's relay (relayclient.go); nil peer to peer
	cookieKey        [16]byte      // the key of the cookies that prove a spectator's address
	hostErr          error         // a spectator's host lost
	rnd              io.Reader     // the nonces' source

	// lost holds the players whose peer we have lost (membership.go), kicked those whose
	// peer we disconnected by hand; first is our lowest local handle, which decides who
	// leaves when a link between two peers is cut.
	lost   wire.HandleSet
	kicked wire.HandleSet
	first  int
	// awake is the time this session has been running, which advances as now does but by
	// no more than stallCredit a call: a peer whose calls stopped for seconds (a background
	// tab, a debugger) does not count that time as the others' silence.
	awake time.Duration

	tick       uint64 // the last tick run
	floor      uint64 // no tick at or before it runs again: 0, or the tick of the snapshot this session started from
	pending    []I    // the local inputs for the next tick, by handle
	hasPending []bool
	running    bool
	closed     bool
	leaving    bool          // cut off from the game (membership.go)
	refusedAt  time.Duration // when a stranger's handshake was last refused
	now        time.Duration

	// The requests of the last Advance, and the memory they point into.
	reqs   []Request[I]
	inputs []PlayerInput[I]
	// final is the last tick whose state's checksum is final once the last requests are
	// carried out; finalDone the last such tick handled (checksum reported, recorded).
	final, finalDone uint64
	sums             [ring]uint64 // checksums of the states saved, by tick
	// sentAt is when each tick's local inputs were added, and first sent.
	sentAt [ring]time.Duration
	// savedTick is the tick whose checksum sums holds, by tick (sparse saving saves only
	// some); saved and savedSlot are the state a sparse rollback loads (sparse.go).
	savedTick [ring]uint64
	saved     uint64
	savedSlot int
	ourSums   [checksumHistory]checksum

	events    []Event
	stats     Stats
	rec       *recorder[I]
	recErr    error
	endErr    error
	timeScale float64

	// Scratch memory for packets.
	msg, out wire.Message
	pkt      packet
	sendBuf  []byte
	rawBuf   []byte // ticks of local inputs to pack
	refBuf   []byte // one tick of a peer's handles
	unpacked []byte
}

// NewSession returns a session of cfg's players over conn, which it reads and writes until
// Close (closing conn too). The handshake starts at the first Poll or Advance. Over a
// *net.UDPConn or a UDPConn, each remote player's Addr must be a *net.UDPAddr with an IP address (not
// unspecified, as ":7000" resolves to) and a port.
func NewSession[I comparable](conn net.PacketConn, cfg Config[I]) (*Session[I], error) {
	if conn == nil {
		return nil, errors.New("netplay: NewSession: conn is nil")
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	addrs := cfg.Players
	if cfg.Relay != nil {
		addrs = []Player{{Local: true}, {Addr: cfg.Relay}}
	}
	if err := checkAddrs(conn, addrs); err != nil {
		return nil, err
	}
	s := &Session[I]{cfg: cfg, codec: cfg.Codec, size: cfg.Codec.Size(), delay: cfg.InputDelay, timeScale: 1}
	s.window = cfg.PredictionWindow
	if cfg.Lockstep {
		s.window = 0
	} else if s.window == 0 {
		s.window = DefaultPredictionWindow
		if cfg.Relay != nil {
			s.window = DefaultRelayPredictionWindow
		}
	}
	if s.cfg.TickRate == 0 {
		s.cfg.TickRate = DefaultTickRate
	}
	if s.cfg.DisconnectTimeout == 0 {
		s.cfg.DisconnectTimeout = DefaultDisconnectTimeout
		if cfg.Relay != nil {
			// Longer than the relay's own timeout: the relay decides who is dropped,
			// and tells a player that comes back.
			s.cfg.DisconnectTimeout = DefaultRelayTimeout
		}
	}
	if s.cfg.DisconnectNotice == 0 {
		s.cfg.DisconnectNotice = min(DefaultDisconnectNotice, s.cfg.DisconnectTimeout/2)
	}
	if s.cfg.DesyncInterval == 0 {
		s.cfg.DesyncInterval = DefaultDesyncInterval
	}
	s.players = append([]Player(nil), cfg.Players...)
	s.decoded = s.codec.Get(make([]byte, s.size))
	rnd := cfg.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	s.rnd = rnd
	for h, p := range s.players {
		q := &player[I]{local: p.Local, peer: -1, raw: make([]byte, ring*s.size)}
		for t := range q.in {
			q.in[t] = s.decoded
		}
		s.queues = append(s.queues, q)
		if p.Local {
			if s.local == 0 {
				s.first = h
			}
			s.local |= 1 << h
			s.nlocal++
			q.confirmed = uint64(s.delay) // the ticks before the delay have the zero input
			continue
		}
		if cfg.Relay != nil {
			continue // the relay is the one peer (newRelayLink)
		}
		for i, pr := range s.peers {
			if sameAddr(pr.addr, p.Addr) {
				q.peer = i
				pr.handles |= 1 << h
			}
		}
		if q.peer < 0 {
			var b [4]byte
			if _, err := io.ReadFull(rnd, b[:]); err != nil {
				return nil, fmt.Errorf("netplay: NewSession: reading a nonce: %w", err)
			}
			pr := &peer{addr: p.Addr, ap: udpAddrPort(p.Addr), handles: 1 << h, first: h,
				nonce: binary.LittleEndian.Uint32(b[:]) | 1}
			pr.stats.Status = Confirmed
			q.peer = len(s.peers)
			s.peers = append(s.peers, pr)
		}
	}
	if cfg.Relay != nil {
		var b [4]byte
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return nil, fmt.Errorf("netplay: NewSession: reading a nonce: %w", err)
		}
		s.newRelayLink(binary.LittleEndian.Uint32(b[:]) | 1)
	}
	n := len(s.players)
	s.pending = make([]I, n)
	s.hasPending = make([]bool, n)
	s.depth = s.window
	if len(s.peers) > 1 {
		s.depth = 2 * s.window // see confirmed
	}
	s.slots = s.depth + 2
	ticksACall := s.depth + 2 // a rollback's and the new tick
	if cfg.Relay != nil {
		ticksACall = s.depth + 1 + relayCatchUp // a rollback's and the ticks of a catch-up
	}
	if cfg.SparseSaving {
		s.slots = sparseSlots
		ticksACall = s.depth + s.window + 3 // from the saved state, which may lag the final tick by the window
	}
	if cfg.spectate {
		s.spectating, s.window, s.depth, s.slots = true, 0, 0, 2
		ticksACall = spectatorCatchUp
	}
	s.reqs = make([]Request[I], 0, 2*ticksACall+4)
	s.inputs = make([]PlayerInput[I], n*(ticksACall+1))
	if cfg.Spectators > 0 {
		if _, err := io.ReadFull(rnd, s.cookieKey[:]); err != nil {
			return nil, fmt.Errorf("netplay: NewSession: reading a key: %w", err)
		}
		stride := n * s.size
		s.history = make([]byte, int(s.historyTicks())*stride)
		s.specBuf = make([]byte, 0, wire.MaxTicksPerInput*stride)
		s.specRef = make([]byte, stride)
	}
	s.events = make([]Event, 0, 64)
	s.sendBuf = make([]byte, 0, wire.MaxPacket)
	s.rawBuf = make([]byte, wire.MaxTicksPerInput*s.nlocal*s.size)
	s.refBuf = make([]byte, wire.MaxTickBytes)
	s.unpacked = make([]byte, 0, wire.MaxRawInputs)
	if cfg.Record != nil {
		rec, err := newRecorder[I](cfg.Record, s.cfg.TickRate, s.size, cfg.RecordName, cfg.RecordMeta)
		if err != nil {
			return nil, fmt.Errorf("netplay: NewSession: Record: %w", err)
		}
		s.rec = rec
	}
	peerAddrs := make([]net.Addr, len(s.peers))
	for i, pr := range s.peers {
		peerAddrs[i] = pr.addr
	}
	s.tr = newTransport(conn, peerAddrs)
	return s, nil
}

// Slots returns the number of state slots the game needs for Save and Load requests: the
// prediction window + 2 between two peers; with three or more, twice the window + 2, for the
// deeper rollback that a peer vanishing may take (see Config.PredictionWindow).
func (s *Session[I]) Slots() int { return s.slots }

// Tick returns the last tick run.
func (s *Session[I]) Tick() uint64 { return s.tick }

// AddLocalInput sets the input of the local player handle for the next tick Advance runs
// (InputDelay ticks later in game time). Calling it again before Advance replaces it; a local
// player with no input added for a tick repeats its last one.
func (s *Session[I]) AddLocalInput(handle int, in I) error {
	if handle < 0 || handle >= len(s.players) || !s.players[handle].Local {
		return fmt.Errorf("netplay: AddLocalInput: handle %d is not a local player's", handle)
	}
	s.pending[handle], s.hasPending[handle] = in, true
	return nil
}

// Events appends to dst the events that have happened since the last call and returns the
// extended slice. The session holds the last 64 events not yet taken.
func (s *Session[I]) Events(dst []Event) []Event {
	dst = append(dst, s.events...)
	s.events = s.events[:0]
	return dst
}

func (s *Session[I]) event(e Event) {
	if len(s.events) == cap(s.events) {
		copy(s.events, s.events[1:])
		s.events = s.events[:len(s.events)-1]
	}
	s.events = append(s.events, e)
}

// TimeScale returns the time scale the session recommends for the loop: 1, or down to
// MinTimeScale while this peer runs ahead of the others, in proportion to how far.
func (s *Session[I]) TimeScale() float64 { return s.timeScale }

// Stats returns what the session has done so far.
func (s *Session[I]) Stats() Stats {
	st := s.stats
	st.Tick = s.tick
	// A tick that an input received since the last Advance proved mispredicted will run
	// again: not final yet.
	st.Confirmed = min(s.confirmed(), s.tick, s.firstWrong()-1)
	st.TimeScale = s.timeScale
	st.SpectatorsHave, st.Spectators = s.spectatorsHave()
	if s.spectating {
		limit := s.limit()
		st.Behind = limit - min(limit, s.tick)
	}
	overflowed, readErrors := s.tr.counts()
	st.Dropped += overflowed
	st.ReadErrors = readErrors
	return st
}

// PeerStats returns what is known of the connection to the peer of remote player handle;
// the zero PeerStats for a handle that is not a remote player's.
func (s *Session[I]) PeerStats(handle int) PeerStats {
	if handle < 0 || handle >= len(s.queues) || s.queues[handle].local {
		return PeerStats{}
	}
	q := s.queues[handle]
	pr := s.peers[q.peer]
	st := pr.stats
	st.Ping = pr.rtt
	st.TicksAhead = pr.advantage()
	if s.relay != nil {
		st.TicksAhead = s.relay.ahead // past its aim on the relay's clock
	}
	st.Confirmed = q.confirmed
	st.Interrupted = pr.interrupted
	if q.gone {
		st.Status = Disconnected
		st.Confirmed = q.goneAfter
	}
	if pr.state == peerGone {
		// No longer measured.
		st.Ping, st.TicksAhead, st.Interrupted = 0, 0, false
	}
	return st
}

// advantage is how many ticks we run ahead of the peer: half the difference of the two
// estimates, which cancels what they share (the round trip's asymmetry, the input delay).
func (pr *peer) advantage() float64 {
	if !pr.haveAhead {
		return 0
	}
	return (pr.aheadLocal - pr.aheadRemote) / 2
}

// stallCredit is the most time one call counts as awake: half the notice, so that a peer back
// from a stall neither times out the others nor reports them quiet before it has heard them.
func (s *Session[I]) stallCredit() time.Duration { return s.cfg.DisconnectNotice / 2 }

// Close tells the peers this one is leaving, ends the recording, if any, stops the reader
// goroutine, if any, and closes the conn. Closing twice does nothing.
func (s *Session[I]) Close() error {
	if s.closed {
		return nil
	}
	s.takeChecksums()
	s.handleFinal()
	s.closed = true
	s.sayBye()
	for _, pr := range s.spectators {
		if pr.state == peerRunning {
			for range byeCopies {
				s.out = wire.Message{}
				s.out.Kind = wire.KindBye
				s.send(pr, &s.out)
			}
		}
	}
	s.flush()
	var err error
	if s.rec != nil {
		err = errors.Join(s.recErr, s.rec.close())
	}
	return errors.Join(err, s.tr.close())
}

// flush sends what the call queued (over a UDPConn, whose packets go out together at the end
// of each call), counting the packets that failed.
func (s *Session[I]) flush() {
	s.stats.SendErrors += uint64(s.tr.flush())
}

// Poll receives what has arrived, runs the protocol's timers (resends, handshake retries,
// quality reports, keep-alives, disconnection) as of now, and sends what is due. Advance polls
// too; call Poll between ticks when the game cannot advance (a paused menu), or more often than
// the tick rate for a lower latency.
func (s *Session[I]) Poll(now time.Duration) {
	if s.closed {
		return
	}
	defer s.flush()
	s.takeChecksums()
	s.poll(now)
}

// poll is Poll once the checksums of the last requests are taken: Advance's too.
func (s *Session[I]) poll(now time.Duration) {
	if now > s.now {
		s.awake += min(now-s.now, s.stallCredit())
		s.now = now
	}
	s.receive()
	// What arrived may make ticks already run final: report and record them now, so that
	// a game that polls between ticks (or has stopped ticking) sends them on.
	if f := min(s.confirmed(), s.tick, s.firstWrong()-1); f > s.final {
		s.final = f
	}
	s.handleFinal()
	if s.relay != nil {
		s.relayTimers()
		return
	}
	s.timers()
	if len(s.spectators) > 0 {
		s.spectatorTimers()
	}
	if !s.spectating {
		s.membership()
	}
}

// Advance polls (see Poll) and runs the next tick: it returns the requests the game must carry
// out, in order, before the next call: a rollback if a prediction proved wrong (a Load, then
// Advance and Save for each tick played again), then Advance and Save for the new tick. The
// first tick's requests start with a Save of tick 0, the state the game starts in. The slice
// and the Inputs it holds are the session's memory, valid until the next call, which reads
// the checksums set on its Save requests.
//
// It returns ErrNotSynchronized until every peer is synchronized, and ErrPredictionThreshold
// when the new tick would run too far ahead of the inputs received; the game skips the tick
// then, and nothing advances. Once a remote player is disconnected and Config.EndOnDisconnect
// is set, it returns an error wrapping ErrDisconnected; once the conn fails (closed under the
// session, or every read failing), an error wrapping the conn's; after Close, ErrClosed.
func (s *Session[I]) Advance(now time.Duration) ([]Request[I], error) {
	if s.closed {
		return nil, ErrClosed
	}
	defer s.flush()
	s.takeChecksums()
	s.poll(now)
	if s.endErr != nil {
		return nil, s.endErr
	}
	if s.recErr != nil {
		return nil, s.recErr
	}
	if err := s.tr.failed(); err != nil {
		return nil, fmt.Errorf("netplay: the conn failed: %w", err)
	}
	if !s.running {
		return nil, ErrNotSynchronized
	}
	if s.spectating {
		return s.advanceSpectator()
	}
	if s.relay != nil {
		return s.advanceRelay()
	}
	next := s.tick + 1
	s.addLocalInputs(next + uint64(s.delay))
	s.sendInputs()
	s.timeSync()
	if next > s.limit()+uint64(s.window) {
		s.stats.Skipped++
		return nil, ErrPredictionThreshold
	}
	s.reqs = s.reqs[:0]
	if s.tick == 0 {
		s.reqs = append(s.reqs, Request[I]{Kind: Save, Tick: 0, Slot: 0}) // the state to go back to
	}
	if s.cfg.SparseSaving {
		s.advanceSparse(next)
		s.tick = next
		s.final = min(s.confirmed(), s.tick)
		return s.reqs, nil
	}
	used := s.rollback()
	s.advanceRequest(next, used)
	s.tick = next
	s.final = min(s.confirmed(), s.tick)
	return s.reqs, nil
}

// rollback appends the requests of a rollback to the first tick that ran with an input that
// proved wrong, if one did (a Load, then the ticks since played again), and returns how many
// of s.inputs they use.
func (s *Session[I]) rollback() int {
	first := s.firstWrong()
	if first > s.tick {
		return 0
	}
	first = max(first, s.tick-min(uint64(s.depth), s.tick))
	if first == 0 {
		first = 1
	}
	s.reqs = append(s.reqs, Request[I]{Kind: Load, Tick: first - 1, Slot: int((first - 1) % uint64(s.slots))})
	used := 0
	for t := first; t <= s.tick; t++ {
		used = s.advanceRequest(t, used)
	}
	depth := int(s.tick - first + 1)
	s.stats.Rollbacks++
	s.stats.LastRollback = depth
	s.stats.MaxRollback = max(s.stats.MaxRollback, depth)
	return used
}

// addLocalInputs schedules the local players' inputs added since the last call at tick at,
// once: a tick already scheduled is left as it was.
func (s *Session[I]) addLocalInputs(at uint64) {
	if last := s.localConfirmed(); at > last {
		for h, q := range s.queues {
			if !q.local {
				continue
			}
			// A delay made longer (SetInputDelay) leaves ticks between: the last input
			// repeated.
			for t := last + 1; t < at; t++ {
				copy(q.raw[(t%ring)*uint64(s.size):][:s.size], q.raw[((t-1)%ring)*uint64(s.size):][:s.size])
				q.in[t%ring] = q.in[(t-1)%ring]
				s.sentAt[t%ring] = s.now
			}
			in := q.in[(at-1)%ring]
			if s.hasPending[h] {
				in = s.pending[h]
			}
			raw := q.raw[(at%ring)*uint64(s.size):][:s.size]
			s.codec.Put(raw, in)
			q.in[at%ring] = s.codec.Get(raw) // what the peers will decode
			q.confirmed = at
			s.sentAt[at%ring] = s.now
			s.hasPending[h] = false
		}
	}
}

// localConfirmed returns the last tick for which local input was added.
func (s *Session[I]) localConfirmed() uint64 {
	for _, q := range s.queues {
		if q.local {
			return q.confirmed
		}
	}
	return 0
}

// firstWrong returns the first tick that ran with an input other than the one now known
// (a prediction that proved wrong, or a player disconnected since), or MaxUint64. A prediction
// that proves right costs nothing: the tick is not run again to mark its input Confirmed.
func (s *Session[I]) firstWrong() uint64 {
	first := uint64(math.MaxUint64)
	low := max(s.tick-min(s.tick, uint64(s.depth)+1), s.floor+1, 1)
	for _, q := range s.queues {
		if q.local && s.relay == nil {
			continue // our own inputs are what they were, but through a relay
		}
		for t := low; t <= s.tick && t < first; t++ {
			if used, now := q.used[t%ring], s.input(q, t); used.Input != now.Input || (used.Status == Disconnected) != (now.Status == Disconnected) {
				first = t
				break
			}
		}
	}
	return first
}

// input returns player q's input for tick t as known now: confirmed, predicted from the last
// confirmed, or Disconnected.
func (s *Session[I]) input(q *player[I], t uint64) PlayerInput[I] {
	switch {
	case q.gone && t > q.goneAfter, t < q.joinedAt:
		return PlayerInput[I]{Input: s.zero, Status: Disconnected}
	case q.local && s.relay != nil && t <= s.relay.confirmed:
		return PlayerInput[I]{Input: s.relay.own[t%ring], Status: Confirmed} // as the relay decided
	case t <= q.confirmed:
		return PlayerInput[I]{Input: q.in[t%ring], Status: Confirmed}
	case s.cfg.Predict != nil:
		return PlayerInput[I]{Input: s.cfg.Predict(q.in[q.confirmed%ring]), Status: Predicted}
	default:
		return PlayerInput[I]{Input: q.in[q.confirmed%ring], Status: Predicted}
	}
}

// advanceRequest appends Advance and Save requests for tick t, with inputs from s.inputs[used:],
// and returns how many of s.inputs are used.
func (s *Session[I]) advanceRequest(t uint64, used int) int {
	used = s.advanceOnly(t, used)
	s.reqs = append(s.reqs, Request[I]{Kind: Save, Tick: t, Slot: int(t % uint64(s.slots))})
	return used
}

// advanceOnly appends the Advance request of tick t, with inputs from s.inputs[used:], and
// returns how many of s.inputs are used.
func (s *Session[I]) advanceOnly(t uint64, used int) int {
	n := len(s.queues)
	ins := s.inputs[used : used+n : used+n]
	for h, q := range s.queues {
		ins[h] = s.input(q, t)
		q.used[t%ring] = ins[h]
	}
	s.reqs = append(s.reqs, Request[I]{Kind: Advance, Tick: t, Inputs: ins})
	return used + n
}

// takeChecksums reads the checksums the game set on the last Save requests.
func (s *Session[I]) takeChecksums() {
	for i := range s.reqs {
		switch r := &s.reqs[i]; r.Kind {
		case Save:
			s.sums[r.Tick%ring] = r.Checksum
			s.savedTick[r.Tick%ring] = r.Tick
			if s.relay != nil && s.relay.snap.down != nil {
				s.restoreTaken(r)
			}
		case Snapshot:
			s.snapTaken(r)
		case Restore:
			s.restoreTaken(r)
		}
	}
	s.reqs = s.reqs[:0]
}

// handleFinal handles the ticks whose state is final since the last call: it records their
// inputs and checksums, reports the checksums due to the peers and compares them with theirs.
func (s *Session[I]) handleFinal() {
	for t := s.finalDone + 1; t <= s.final; t++ {
		sum := s.sums[t%ring]
		if s.history != nil {
			s.keepHistory(t)
		}
		if s.rec != nil && s.recErr == nil {
			for h, q := range s.queues {
				in := s.input(q, t)
				raw := q.raw
				if q.local && s.relay != nil {
					raw = s.relay.ownRaw // as the relay decided
				}
				s.recErr = s.rec.input(t, h, in.Status, raw[(t%ring)*uint64(s.size):][:s.size])
			}
			if s.recErr == nil {
				s.recErr = s.rec.tick(t, sum)
			}
		}
		if s.cfg.DesyncInterval > 0 && t%uint64(s.cfg.DesyncInterval) == 0 {
			s.ourSums[(t/uint64(s.cfg.DesyncInterval))%checksumHistory] = checksum{t, sum}
			for _, pr := range s.peers {
				s.sendChecksum(pr, t, sum)
				s.compareSums(pr)
			}
			for _, pr := range s.spectators {
				s.sendChecksum(pr, t, sum)
			}
			if s.relay != nil {
				s.relayCompare()
			}
		}
	}
	s.finalDone = max(s.finalDone, s.final)
}

// compareSums compares the checksums pr reported with ours for the same ticks.
func (s *Session[I]) compareSums(pr *peer) {
	for i := range pr.theirSums {
		theirs := &pr.theirSums[i]
		if theirs.tick == 0 || theirs.tick > s.finalDone && theirs.tick > s.final {
			continue
		}
		if q := s.queues[max(pr.first, 0)]; !s.spectating && pr.first >= 0 && q.gone && theirs.tick > q.goneAfter {
			*theirs = checksum{} // past its players' cutoff: a game we no longer share
			continue
		}
		ours := s.ourSums[(theirs.tick/uint64(s.cfg.DesyncInterval))%checksumHistory]
		if ours.tick == theirs.tick && ours.sum != theirs.sum && theirs.tick > pr.desynced {
			pr.desynced = theirs.tick
			s.event(Event{Kind: EventDesync, Handle: pr.first, Tick: theirs.tick, Local: ours.sum, Remote: theirs.sum})
		}
		if ours.tick >= theirs.tick || ours.tick == 0 && theirs.tick+checksumHistory*uint64(s.cfg.DesyncInterval) < s.final {
			*theirs = checksum{}
		}
	}
}
