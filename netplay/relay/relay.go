// Package relay runs relayed netplay matches: one authority that receives each player's
// inputs, decides on its own clock which input counts for each tick, and sends every player and
// spectator the confirmed inputs of everyone. Players run netplay sessions with Config.Relay
// set: they still predict and roll back, so that play feels as it does peer to peer, but no
// two of them can ever run different games, nobody needs to reach anybody but the relay, and
// only the relay (or whoever owns the match, through its API) drops a player.
//
// A Relay serves many matches from one socket, each match run on a gameloop.Pool at its tick
// rate with no goroutine of its own. Its rules, per match:
//
//   - Tick k is confirmed k periods after the match starts (when its last player has
//     joined). A player's input for k counts if it arrives before then; one that does not
//     is replaced by the player's last input (the player learns it with the others' inputs
//     and rolls back to what ran). Inputs may arrive up to MatchConfig.Window ticks early.
//   - A player unheard for MatchConfig.Timeout is dropped: from the next tick its input is
//     the zero input, marked Disconnected, for everyone; it is told so if it comes back.
//     So is a player that says goodbye, or one the match's owner drops (Relay.Drop).
//   - Confirmed ticks are kept (MatchConfig.History of them) for players that fall behind
//     and come back, for players that join again from another address (a phone switching
//     networks) and re-simulate from the start, and for spectators, who are sent only
//     confirmed inputs, optionally some ticks late (a broadcast delay).
//
// Trust: a player may send only its own slot's input, with the session the relay gave it. A
// match is joined with a token (package netplay/internal/token's format: an HMAC over the
// match, the slot and an expiry, made with relay.MakeToken by whoever creates matches, with a
// key the relay holds), or, on a relay made with no keys, by anyone (an open relay, for local
// play and tests: players then create matches by joining them). An address gets no answer
// larger than its request until it has echoed a cookie, which proves it receives what is sent
// to it. Packets a second per address, matches and spectators are limited, and every refusal
// is counted (Metrics).
package relay

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/internal/token"
	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Defaults and limits.
const (
	DefaultMaxMatches    = 10_000
	DefaultMaxSpectators = 1_000
	// DefaultPacketRate is how many packets a second an address may send by default: ten a
	// tick at 60 Hz, far more than a player sends.
	DefaultPacketRate = 600
	// DefaultStrangerRate is how many packets a second from addresses not yet admitted the
	// relay answers, all of them together.
	DefaultStrangerRate = 20_000
	// DefaultTimeout is how long a player may go unheard before it is dropped, by default.
	DefaultTimeout = 5 * time.Second
	// MaxMatchName is the longest match name.
	MaxMatchName = wire.MaxMatch
	// startGrace is how long a match's first ticks wait past their deadlines for a player
	// there at the start whose first input has not come (it heard of the start half a round
	// trip late): its inputs for them count rather than being replaced.
	startGrace = time.Second
)

// Options configure a Relay. Zero fields take the defaults.
type Options struct {
	// Keys are the keys tokens are made with, by key id (MakeToken). A relay with none is
	// open: anyone may join, and a join for a match that does not exist creates it with the
	// joining game's shape.
	Keys map[byte][]byte
	// MaxMatches is the most matches at once: DefaultMaxMatches if 0.
	MaxMatches int
	// MaxSpectators is the most spectators of one match: DefaultMaxSpectators if 0.
	MaxSpectators int
	// PacketRate is how many packets a second one admitted address may send (a burst of a
	// quarter second's more): DefaultPacketRate if 0. The rest are dropped and counted.
	PacketRate int
	// StrangerRate is how many packets a second from addresses not admitted the relay
	// answers, together: DefaultStrangerRate if 0.
	StrangerRate int
	// OpenMatch is the MatchConfig of the matches joins create, but for their shape
	// (Players, InputSize, TickRate), which is the joining game's: on an open relay, a join
	// for a match that does not exist creates it; on one with keys, the first join with a
	// valid token for a match that does not exist does (the token is the matchmaker's word
	// that the match is to be).
	OpenMatch MatchConfig
	// Record, if set, is asked for a writer for each match as it is created, and the
	// match's confirmed inputs are written to it (package replay's format, as a netplay
	// session records with Config.Record: every player's input and status each tick, and the
	// checksums the players report), two seconds of ticks behind the match so that the
	// players' checksums are there; the rest when the match ends, and then the writer is
	// closed. A match whose writer cannot be had is not created (its joins are refused as
	// RefusedFull) and the error counted.
	Record func(match string) (io.WriteCloser, error)
	// Now is the time, for tests; nil means the pool's clock.
	now func() time.Duration
}

// MatchConfig is a match's shape and rules.
type MatchConfig struct {
	// Players is the number of players (slots), 1 to 8; InputSize one player's input, 1 to
	// 32 bytes; TickRate the ticks a second, 1 to 1000. Every player's session must have
	// the same.
	Players, InputSize, TickRate int
	// MinPlayers is how many players must have joined for the match to start: 0 means
	// Players, a match that starts full and takes nobody after. With fewer, the match starts
	// once MinPlayers have joined, and takes the others as they come, into the slots nobody
	// has had, for as long as it keeps its first tick (History): until a slot is joined its
	// input is the zero input, Disconnected; a player joining late re-simulates the match
	// from its start (at up to 30 ticks a frame), and its own inputs count from the tick
	// after the one the relay had confirmed when it joined. On an open relay
	// (Options.OpenMatch) it is at most the joining game's Players.
	MinPlayers int
	// Window is how many ticks ahead of the last confirmed one an input may be: 0 means 32.
	Window int
	// Timeout is how long a player may go unheard before it is dropped: 0 means
	// DefaultTimeout. A player back from a shorter stall (a background tab, a laptop lid
	// closed and opened) catches up and plays on.
	Timeout time.Duration
	// History is how many confirmed ticks are kept for players coming back and spectators:
	// 0 means a minute's. A player or spectator further behind is dropped.
	History int
	// SpectatorDelay is how many ticks behind the last confirmed one spectators are fed.
	SpectatorDelay int
	// SnapshotEvery is how many ticks apart the relay gathers a state snapshot of the match:
	// it asks one player (in turn, among those whose sessions set netplay.Config.Snapshots)
	// for its state after a tick and the others for their checksum of it, and keeps the
	// state once its checksum is the one more players gave than gave another, one besides
	// the sharer at least (a player alone in its match needs none). A player
	// joining late or coming back from a new address, whose session takes snapshots, then
	// starts from the latest instead of re-simulating from the first tick, and can join
	// while the relay keeps the ticks since it, not only while it keeps the first: a match
	// older than History takes late and returning players, and spectators (from one no newer
	// than SpectatorDelay allows). 0 (the default) gathers none; at
	// most half of History. A player whose round trip to the relay is over its prediction
	// window cannot share (its saved state of the tick is gone when the tick is final).
	SnapshotEvery int
	// MaxSnapshot is the largest snapshot the match takes, in bytes: 0 means
	// DefaultMaxSnapshot, 1 MiB; at most 64 MiB. A match holds the latest and the one being
	// gathered, and with a SpectatorDelay those since the newest that spectators may start
	// from (the delay over SnapshotEvery, and one more).
	MaxSnapshot int
	// AtDeadline confirms each tick at its deadline only, even when every player's input for
	// it is in before: every player then learns the others' inputs at the same time after
	// the deadline, however fast its link, at the cost of the wait (up to two ticks, the
	// players' aim, and the way to the relay). By default a tick is confirmed, and sent, as
	// soon as its last input arrives.
	AtDeadline bool
}

// Errors of the Relay's methods.
var (
	ErrExists   = errors.New("relay: a match of that name exists")
	ErrNoMatch  = errors.New("relay: no such match")
	ErrFull     = errors.New("relay: the relay has all the matches it takes")
	ErrClosed   = errors.New("relay: closed")
	ErrNotReady = errors.New("relay: not serving yet")
)

// Relay serves relayed matches over one conn. Its methods are safe for concurrent use.
type Relay struct {
	conn net.PacketConn
	udp  *netplay.UDPConn
	pool *gameloop.Pool
	opts Options
	now  func() time.Duration

	mu       sync.Mutex
	matches  map[string]*match
	addrs    map[addrKey]*member
	closed   bool
	draining bool // no new match

	// The reader's own (one goroutine).
	verifier  *token.Verifier
	rng       *mrand.ChaCha8
	cookieKey [16]byte
	msg       wire.Message
	out       wire.Message
	buf       []byte
	strangers bucket

	sendMu  sync.Mutex // guards sendBuf for the reader's and the API's sends
	sendBuf []byte

	batches sync.Pool // of *sender, for the matches' updates

	m metrics
}

// addrKey identifies a sender: its UDP address, or its address's string on another network.
type addrKey struct {
	ap   netip.AddrPort
	name string
}

func keyOf(addr net.Addr, ap netip.AddrPort) addrKey {
	if ap.IsValid() {
		return addrKey{ap: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())}
	}
	return addrKey{name: addr.Network() + "|" + addr.String()}
}

// New returns a relay over conn whose matches run on pool. It does nothing until Serve.
func New(conn net.PacketConn, pool *gameloop.Pool, opts *Options) (*Relay, error) {
	if conn == nil {
		return nil, errors.New("relay: New: conn is nil")
	}
	r := &Relay{conn: conn, pool: pool, matches: map[string]*match{}, addrs: map[addrKey]*member{},
		verifier: token.NewVerifier(), buf: make([]byte, 2048), sendBuf: make([]byte, 0, wire.MaxPacket)}
	if opts != nil {
		r.opts = *opts
	}
	o := &r.opts
	switch {
	case o.MaxMatches < 0, o.MaxSpectators < 0, o.PacketRate < 0, o.StrangerRate < 0:
		return nil, errors.New("relay: New: a negative limit in Options")
	}
	if o.MaxMatches == 0 {
		o.MaxMatches = DefaultMaxMatches
	}
	if o.MaxSpectators == 0 {
		o.MaxSpectators = DefaultMaxSpectators
	}
	if o.PacketRate == 0 {
		o.PacketRate = DefaultPacketRate
	}
	if o.StrangerRate == 0 {
		o.StrangerRate = DefaultStrangerRate
	}
	for id, key := range o.Keys {
		if err := r.verifier.SetKey(id, key); err != nil {
			return nil, fmt.Errorf("relay: New: key %d: %w", id, err)
		}
	}
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("relay: New: %w", err)
	}
	r.rng = mrand.NewChaCha8(seed)
	copy(r.cookieKey[:], seed[16:])
	r.now = o.now
	if r.now == nil {
		if pool == nil {
			return nil, errors.New("relay: New: pool is nil")
		}
		r.now = pool.Clock().Now
	}
	r.udp, _ = conn.(*netplay.UDPConn)
	r.strangers = bucketFull(o.StrangerRate, 0)
	r.batches.New = func() any { return r.newSender() }
	// The matches joins create: checked now, with a shape of their own.
	probe := o.OpenMatch
	probe.Players, probe.InputSize, probe.TickRate = wire.MaxPlayers, 1, 60
	if _, err := newMatch(r, "", probe); err != nil {
		return nil, fmt.Errorf("relay: New: Options.OpenMatch: %w", err)
	}
	return r, nil
}

// Open reports whether the relay takes players without tokens.
func (r *Relay) Open() bool { return len(r.opts.Keys) == 0 }

// CreateMatch creates a match named name (1 to MaxMatchName bytes) for players holding
// tokens for it (MakeToken). It starts once every slot has joined.
func (r *Relay) CreateMatch(name string, cfg MatchConfig) error {
	if len(name) == 0 || len(name) > MaxMatchName {
		return fmt.Errorf("relay: CreateMatch: a name of %d bytes: want 1 to %d", len(name), MaxMatchName)
	}
	_, err := r.createMatch(name, cfg)
	return err
}

// EndMatch ends match name: its players and spectators are told (their sessions end with
// netplay.ErrEnded) and its slots freed.
func (r *Relay) EndMatch(name string) error {
	r.mu.Lock()
	mt := r.matches[name]
	r.mu.Unlock()
	if mt == nil {
		return fmt.Errorf("%w: %q", ErrNoMatch, name)
	}
	mt.end(reasonOwner)
	return nil
}

// Drop drops player slot of match name, as a timeout would: from the next tick its input is
// the zero input, marked Disconnected, for everyone, and it is told.
func (r *Relay) Drop(name string, slot int) error {
	r.mu.Lock()
	mt := r.matches[name]
	r.mu.Unlock()
	if mt == nil {
		return fmt.Errorf("%w: %q", ErrNoMatch, name)
	}
	return mt.drop(slot)
}

// Matches returns the names of the matches running (created and not ended).
func (r *Relay) Matches() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.matches))
	for name := range r.matches {
		names = append(names, name)
	}
	return names
}

// MatchStats is what a match has done.
type MatchStats struct {
	// Started reports whether every player has joined and ticks run; Confirmed is the last
	// tick confirmed.
	Started   bool
	Confirmed uint64
	// Joined is how many slots have a player (dropped ones included), Dropped how many are
	// dropped, Spectators how many spectators watch.
	Joined, Dropped, Spectators int
	// Replaced counts the inputs that did not arrive in time (a player and a tick each).
	Replaced uint64
	// Snapshot is the tick of the match's latest state snapshot (MatchConfig.SnapshotEvery),
	// 0 for none yet; SnapshotBytes its size.
	Snapshot      uint64
	SnapshotBytes int
}

// MatchStats returns what match name has done.
func (r *Relay) MatchStats(name string) (MatchStats, error) {
	r.mu.Lock()
	mt := r.matches[name]
	r.mu.Unlock()
	if mt == nil {
		return MatchStats{}, fmt.Errorf("%w: %q", ErrNoMatch, name)
	}
	return mt.stats(), nil
}

// Serve reads the conn and serves the matches until ctx ends or the conn fails; then it ends
// every match (its players told), and returns ctx's error or the conn's. It closes nothing:
// close the conn after it returns.
func (r *Relay) Serve(ctx context.Context) error {
	if r.pool == nil {
		return errors.New("relay: Serve: no pool")
	}
	errc := make(chan error, 1)
	go func() { errc <- r.readLoop() }()
	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
		// Wake the reader: a deadline in the past makes its read return.
		_ = r.conn.SetReadDeadline(time.Unix(1, 0))
		<-errc
	case err = <-errc:
	}
	r.shutdown()
	return err
}

// Drain stops taking new matches (a join for one is refused: the relay has no room; players
// of the matches running may still join them again) and waits until every match running has
// ended, or ctx has: then it returns ctx's error, and the matches left run on (Serve's end ends
// them). A relay on a fleet drains on SIGTERM, within the time its orchestrator grants.
func (r *Relay) Drain(ctx context.Context) error {
	r.mu.Lock()
	r.draining = true
	r.mu.Unlock()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		r.mu.Lock()
		n := len(r.matches)
		r.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// shutdown ends every match and refuses new ones.
func (r *Relay) shutdown() {
	r.mu.Lock()
	r.closed = true
	all := make([]*match, 0, len(r.matches))
	for _, mt := range r.matches {
		all = append(all, mt)
	}
	r.mu.Unlock()
	for _, mt := range all {
		mt.end(reasonShutdown)
	}
}

// readBatch is how many packets the relay reads with one system call, over a UDPConn.
const readBatch = 64

// readLoop reads and handles packets until the conn fails: over a UDPConn, as many as have
// arrived at once (recvmmsg on Linux).
func (r *Relay) readLoop() error {
	if r.udp != nil {
		b, err := netplay.NewBatch(readBatch)
		if err != nil {
			return err
		}
		for {
			n, err := r.udp.ReadBatch(b)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, net.ErrClosed) {
					return err
				}
				r.m.readErrors.Add(1)
				continue
			}
			now := r.now()
			s := r.sender() // what the packets' ticks confirmed early send, together
			for i := range n {
				p, from := b.Packet(i)
				r.handle(now, p, nil, from, s)
			}
			confirmed := s.confirmed // before s goes back to the pool, for another to take
			r.release(s)
			if confirmed {
				r.m.forward.observe(r.now() - now)
			}
		}
	}
	for {
		var (
			n    int
			addr net.Addr
			ap   netip.AddrPort
			err  error
		)
		switch c := r.conn.(type) {
		case *netplay.UDPConn:
			n, ap, err = c.ReadFromUDPAddrPort(r.buf)
		case *net.UDPConn:
			n, ap, err = c.ReadFromUDPAddrPort(r.buf)
		default:
			n, addr, err = r.conn.ReadFrom(r.buf)
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return err
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			r.m.readErrors.Add(1)
			continue
		}
		s := r.sender()
		r.handle(r.now(), r.buf[:n], addr, ap, s)
		r.release(s)
	}
}

// poll handles every packet waiting on a conn that can be polled (a netsim conn), as of now:
// Serve's reading, for tests on simulated time.
func (r *Relay) poll(now time.Duration) {
	tr, ok := r.conn.(interface {
		TryReadFrom([]byte) (int, net.Addr, bool)
	})
	if !ok {
		panic("relay: poll needs a conn with TryReadFrom")
	}
	s := r.sender()
	defer r.release(s)
	for {
		n, addr, ok := tr.TryReadFrom(r.buf)
		if !ok {
			return
		}
		r.handle(now, r.buf[:n], addr, netip.AddrPort{}, s)
	}
}

// handle handles one packet from addr (or ap), which arrived at now; what it sends to the
// members of a match (the ticks its inputs let the match confirm) goes in s.
func (r *Relay) handle(now time.Duration, pkt []byte, addr net.Addr, ap netip.AddrPort, s *sender) {
	r.m.packetsIn.Add(1)
	r.m.bytesIn.Add(uint64(len(pkt)))
	k := keyOf(addr, ap)
	r.mu.Lock()
	mb := r.addrs[k]
	r.mu.Unlock()
	if mb == nil {
		if !r.strangers.allow(now) {
			r.m.refuse(refusedRate)
			return
		}
		if err := wire.Decode(pkt, &r.msg); err != nil {
			r.m.refuse(refusedMalformed)
			return
		}
		if r.msg.Kind != wire.KindJoin {
			r.m.refuse(refusedStranger)
			return
		}
		if addr == nil {
			addr = net.UDPAddrFromAddrPort(k.ap)
		}
		r.join(now, k, addr)
		return
	}
	if !mb.bucket.allow(now) {
		r.m.refuse(refusedRate)
		return
	}
	if err := wire.Decode(pkt, &r.msg); err != nil {
		r.m.refuse(refusedMalformed)
		return
	}
	if r.msg.Kind == wire.KindJoin {
		r.join(now, k, mb.addr)
		return
	}
	mb.match.receive(now, mb, &r.msg, s)
}

// cookie returns the cookie of address k in the cookie epoch (10 s) epoch.
func (r *Relay) cookie(k addrKey, epoch int64) uint32 {
	var b [16 + 18 + 8]byte
	copy(b[:16], r.cookieKey[:])
	a := k.ap.Addr().As16()
	copy(b[16:32], a[:])
	binary.LittleEndian.PutUint16(b[32:], k.ap.Port())
	binary.LittleEndian.PutUint64(b[34:], uint64(epoch))
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(k.name))
	var sum [sha256.Size]byte
	return binary.LittleEndian.Uint32(h.Sum(sum[:0])) | 1
}

const cookieEpoch = 10 * time.Second

// validCookie reports whether c is k's cookie of this epoch or the last.
func (r *Relay) validCookie(k addrKey, c uint32, now time.Duration) bool {
	if c == 0 {
		return false
	}
	e := int64(now / cookieEpoch)
	return c == r.cookie(k, e) || c == r.cookie(k, e-1)
}

// join handles the Join in r.msg from k.
func (r *Relay) join(now time.Duration, k addrKey, addr net.Addr) {
	m := &r.msg
	if !r.validCookie(k, m.Cookie, now) {
		r.m.cookies.Add(1)
		r.out = wire.Message{}
		r.out.Kind, r.out.Session, r.out.Cookie = wire.KindCookie, m.Session, r.cookie(k, int64(now/cookieEpoch))
		r.sendTo(&r.out, addr, k.ap, nil)
		return
	}
	name := string(m.Match[:m.MatchLen]) // allocates: only for a proven address
	slot := m.Slot
	if !r.Open() {
		tm, ts, err := r.verifier.Verify(m.Token[:m.TokenLen], time.Now())
		switch {
		case errors.Is(err, token.ErrExpired):
			r.refuse(k, addr, wire.RefusedExpired)
			return
		case err != nil:
			r.refuse(k, addr, wire.RefusedToken)
			return
		case string(tm) != name:
			r.refuse(k, addr, wire.RefusedToken)
			return
		}
		if ts == token.MaxSlot {
			ts = wire.SpectatorSlot
		}
		switch {
		case slot == wire.AnySlot:
			slot = ts
		case slot != ts:
			r.refuse(k, addr, wire.RefusedSlot)
			return
		}
	}
	r.mu.Lock()
	mt := r.matches[name]
	closed, draining := r.closed, r.draining
	r.mu.Unlock()
	switch {
	case closed:
		r.refuse(k, addr, wire.RefusedEnded)
		return
	case draining && mt == nil:
		r.refuse(k, addr, wire.RefusedFull)
		return
	}
	if mt == nil {
		if len(name) == 0 {
			r.refuse(k, addr, wire.RefusedNoMatch)
			return
		}
		cfg := r.opts.OpenMatch
		cfg.Players, cfg.InputSize, cfg.TickRate = m.Players, m.InputSize, m.TickRate
		cfg.MinPlayers = min(cfg.MinPlayers, cfg.Players)
		var err error
		if mt, err = r.createMatch(name, cfg); err != nil {
			switch {
			case errors.Is(err, ErrExists):
				r.mu.Lock()
				mt = r.matches[name]
				r.mu.Unlock()
			case errors.Is(err, ErrFull):
				r.refuse(k, addr, wire.RefusedFull)
				return
			default:
				r.refuse(k, addr, wire.RefusedShape)
				return
			}
			if mt == nil {
				r.refuse(k, addr, wire.RefusedEnded)
				return
			}
		}
	}
	if reason := mt.admit(now, k, addr, slot, m.Nonce, m.Players, m.InputSize, m.TickRate, m.JoinFlags, !r.Open()); reason != 0 {
		r.refuse(k, addr, reason)
	}
}

// refuse answers the join in r.msg with a refusal.
func (r *Relay) refuse(k addrKey, addr net.Addr, reason uint8) {
	r.m.refuse(int(reason))
	r.out = wire.Message{}
	r.out.Kind, r.out.Session, r.out.Nonce, r.out.Reason = wire.KindRefused, r.msg.Session, r.msg.Nonce, reason
	r.sendTo(&r.out, addr, k.ap, nil)
}

// sendTo sends m to addr at once (from the reader, or an API call), in mb's session if mb is
// not nil (the match's mutex held).
func (r *Relay) sendTo(m *wire.Message, addr net.Addr, ap netip.AddrPort, mb *member) {
	if mb != nil {
		m.Session = mb.session
		mb.seq++
		m.Seq = mb.seq
	}
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	b, err := wire.Append(r.sendBuf[:0], m)
	if err != nil {
		return
	}
	r.write(b, addr, ap)
}

// write sends one packet.
func (r *Relay) write(b []byte, addr net.Addr, ap netip.AddrPort) {
	var err error
	switch c := r.conn.(type) {
	case *netplay.UDPConn:
		_, err = c.WriteToUDPAddrPort(b, ap)
	case *net.UDPConn:
		_, err = c.WriteToUDPAddrPort(b, ap)
	default:
		_, err = r.conn.WriteTo(b, addr)
	}
	if err != nil {
		r.m.sendErrors.Add(1)
		return
	}
	r.m.packetsOut.Add(1)
	r.m.bytesOut.Add(uint64(len(b)))
}

// createMatch creates and registers a match, and schedules it on the pool.
func (r *Relay) createMatch(name string, cfg MatchConfig) (*match, error) {
	mt, err := newMatch(r, name, cfg)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	switch {
	case r.closed || r.draining:
		r.mu.Unlock()
		return nil, ErrClosed
	case r.matches[name] != nil:
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrExists, name)
	case len(r.matches) >= r.opts.MaxMatches:
		r.mu.Unlock()
		return nil, ErrFull
	}
	r.matches[name] = mt
	r.mu.Unlock()
	if r.opts.Record != nil {
		w, err := r.opts.Record(name)
		if err != nil {
			r.m.recordErrors.Add(1)
			r.forget(mt, nil, true)
			return nil, fmt.Errorf("%w: recording match %q: %w", ErrFull, name, err)
		}
		mt.rec, err = newRecording(w, name, cfg)
		if err != nil {
			r.m.recordErrors.Add(1)
			w.Close()
			r.forget(mt, nil, true)
			return nil, fmt.Errorf("%w: recording match %q: %w", ErrFull, name, err)
		}
	}
	r.m.matchesStarted.Add(1)
	if r.pool != nil {
		pm, err := r.pool.NewMatch(context.Background(), mt, gameloop.Config{TickRate: cfg.TickRate, MaxTicksPerFrame: 4})
		if err != nil {
			r.mu.Lock()
			delete(r.matches, name)
			r.mu.Unlock()
			return nil, fmt.Errorf("relay: a match on the pool: %w", err)
		}
		mt.pm = pm
		pm.Start()
	}
	return mt, nil
}

// advance runs every match's update as of now: Serve's pool, for tests on simulated time.
func (r *Relay) advance(now time.Duration) {
	r.mu.Lock()
	all := make([]*match, 0, len(r.matches))
	for _, mt := range r.matches {
		all = append(all, mt)
	}
	r.mu.Unlock()
	for _, mt := range all {
		mt.update(now, now)
	}
}

// forget removes the addresses of members of mt, and with ended, mt itself.
func (r *Relay) forget(mt *match, keys []addrKey, ended bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		if mb := r.addrs[k]; mb != nil && mb.match == mt {
			delete(r.addrs, k)
		}
	}
	if ended && r.matches[mt.name] == mt {
		delete(r.matches, mt.name)
	}
}

// bucket is a token bucket: rate a second, burst at most.
type bucket struct {
	rate, burst, have float64
	at                time.Duration
}

// allow reports whether one more packet may pass at now.
func (b *bucket) allow(now time.Duration) bool {
	if now > b.at {
		b.have = min(b.burst, b.have+(now-b.at).Seconds()*b.rate)
		b.at = now
	}
	if b.have < 1 {
		return false
	}
	b.have--
	return true
}

// bucketFull returns a full bucket of rate a second.
func bucketFull(rate int, now time.Duration) bucket {
	return bucket{rate: float64(rate), burst: float64(rate) / 4, have: float64(rate) / 4, at: now}
}

// MakeToken returns a token that admits its holder to slot of match (or, with slot -1, to
// watch it) until expiry, made with key under id: a relay whose Options.Keys hold key under id
// takes it. Whoever creates matches (a matchmaker, a lobby) makes one for each player and
// hands it over a channel it trusts.
func MakeToken(key []byte, id byte, match string, slot int, expiry time.Time) ([]byte, error) {
	if slot == -1 {
		slot = token.MaxSlot
	} else if slot < 0 || slot >= wire.MaxPlayers {
		return nil, fmt.Errorf("relay: MakeToken: slot %d: want 0 to %d, or -1 for a spectator", slot, wire.MaxPlayers-1)
	}
	return token.Make(key, id, match, slot, expiry)
}
