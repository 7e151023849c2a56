// Package lobby is the signalling server that package rtc's peers meet through: an
// http.Handler that speaks the protocol of package rtc over WebSockets. cmd/lobby serves it.
//
// A peer connects, joins a room by name with the room's size (2 to 8 peers). When the room is
// full the lobby tells each member its index (the order in which they joined) and then relays
// the SDP offers and answers and the ICE candidates of a WebRTC connection between every two
// members, unread. A member connected with all the others says so and the lobby closes its
// socket: no game traffic goes through the lobby. A room is forgotten once every member has
// connected or left, and its name is free again.
//
// Clients are not trusted: every limit of Config is enforced, and a client that breaks the
// protocol (malformed JSON, an unknown message type, a join to a full room or with another
// size than the room's, a message too large or too frequent) is sent an error message that
// says why, and its socket is closed. A client that does not read what the lobby sends it is
// closed as slow once Config.MaxQueued bytes wait for it, or once the lobby holds
// Config.MaxQueuedTotal bytes for all its peers: no client holds more of the lobby's memory.
// Nothing a client sends stops the server.
package lobby

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/gameloop-go/gameloop/netplay/rtc/internal/signal"
)

// MaxRoomSize is the largest room: netplay's most players.
const MaxRoomSize = 8

// MaxRoomName is the longest room name, in bytes.
const MaxRoomName = 64

// Defaults of the zero fields of a Config.
const (
	DefaultMaxRooms      = 10_000
	DefaultMaxConns      = 20_000
	DefaultMaxMessage    = 64 << 10
	DefaultRate          = 20
	DefaultBurst         = 100
	DefaultWaitTimeout   = 5 * time.Minute
	DefaultSignalTimeout = 30 * time.Second
	// DefaultMaxQueued is 4 messages of DefaultMaxMessage: a room's worth of SDP descriptions
	// and ICE candidates many times over.
	DefaultMaxQueued      = 256 << 10
	DefaultMaxQueuedTotal = 64 << 20
)

// writeTimeout bounds how long a message to a peer may wait for it to read.
const writeTimeout = 10 * time.Second

// queued is how many messages a peer may have waiting to be written, whatever their size (see
// Config.MaxQueued for their bytes): a peer that does not read them is closed rather than let
// them pile up.
const queued = 256

// Config sets the lobby's limits. Zero fields take the defaults given.
type Config struct {
	// MaxRooms is the most rooms open at once (waiting for members or signalling): a join
	// that would open one more is refused. 0 means DefaultMaxRooms.
	MaxRooms int
	// MaxRoomSize is the largest room size a join may ask for, 2 to MaxRoomSize; 0 means
	// MaxRoomSize.
	MaxRoomSize int
	// MaxConns is the most peers connected at once: one more is refused. 0 means
	// DefaultMaxConns.
	MaxConns int
	// MaxMessage is the largest message a peer may send, in bytes. 0 means DefaultMaxMessage.
	MaxMessage int
	// Rate and Burst bound the messages a peer sends: Burst at once, Rate a second on
	// average. 0 means DefaultRate and DefaultBurst.
	Rate  float64
	Burst int
	// WaitTimeout is how long a peer may wait in a room that is not full. 0 means
	// DefaultWaitTimeout.
	WaitTimeout time.Duration
	// SignalTimeout is how long a peer may take to join once connected, and to connect with
	// every other member once its room is full. 0 means DefaultSignalTimeout.
	SignalTimeout time.Duration
	// MaxQueued is the most bytes of messages that may wait to be written to one peer (a
	// message counts until the peer's socket has taken it): a peer that does not read what it
	// is sent, so that a message would take it over, is closed as slow (Stats.Refused's
	// RefusedSlow). At least MaxMessage+1024, so that any message fits; 0 means
	// DefaultMaxQueued, or 4 times MaxMessage if that is more.
	MaxQueued int
	// MaxQueuedTotal is the most bytes of messages that may wait to be written to all the
	// peers together: a peer that a message would take the total over is closed as slow. At
	// least MaxQueued; 0 means DefaultMaxQueuedTotal, or MaxQueued if that is more.
	MaxQueuedTotal int
	// OriginPatterns are the origins, other than the lobby's own host, whose web pages may
	// connect (websocket.AcceptOptions.OriginPatterns, such as "example.com" or
	// "*.example.com"). Clients that are not browsers send no origin and are always accepted.
	OriginPatterns []string
	// Logf, if not nil, is told of every peer refused or timed out, and why.
	Logf func(format string, args ...any)
}

// Refusal reasons, the keys of Stats.Refused.
const (
	RefusedConns    = "conns"    // MaxConns peers were connected
	RefusedRooms    = "rooms"    // MaxRooms rooms were open
	RefusedRoomFull = "roomfull" // a join to a full room
	RefusedProtocol = "protocol" // malformed JSON, an unknown type, a bad field
	RefusedTooBig   = "toobig"   // a message over MaxMessage
	RefusedRate     = "rate"     // messages over Rate and Burst
	RefusedTimeout  = "timeout"  // WaitTimeout or SignalTimeout passed
	RefusedSlow     = "slow"     // the peer did not read what the lobby sent it
	RefusedShutdown = "shutdown" // the lobby was closing
)

// RefusalReasons lists every key of Stats.Refused.
func RefusalReasons() []string {
	return []string{RefusedConns, RefusedRooms, RefusedRoomFull, RefusedProtocol, RefusedTooBig,
		RefusedRate, RefusedTimeout, RefusedSlow, RefusedShutdown}
}

// Stats is what the lobby holds now and has done so far.
type Stats struct {
	Peers   int // peers connected now
	Rooms   int // rooms open now
	Waiting int // rooms open now that are not full yet
	Queued  int // bytes of messages waiting to be written to the peers now

	Joins     uint64 // joins accepted
	Filled    uint64 // rooms that filled
	Connected uint64 // rooms whose every member connected with every other
	Relayed   uint64 // signals relayed from a member to another
	// Refused counts the peers closed for breaking a limit or the protocol, by reason (the
	// Refused constants).
	Refused map[string]uint64
}

// Server is the lobby: an http.Handler whose every request is a peer's WebSocket. Make one
// with New, serve it on a path of an http.Server's mux, and Close it before or after
// shutting the http.Server down (WebSockets are not shut down by http.Server.Shutdown).
type Server struct {
	cfg Config
	// active counts the handlers running (guarded by mu); idle is closed once the lobby is
	// closed and none is. A WaitGroup would not do: a handler may start while Close waits.
	active int
	idle   chan struct{}

	queued atomic.Int64 // bytes waiting to be written, of every peer

	mu      sync.Mutex
	closed  bool
	rooms   map[string]*room
	peers   map[*peer]struct{}
	waiting int
	stats   Stats
}

// room is a room of the lobby; guarded by Server.mu.
type room struct {
	name    string
	size    int
	members []*peer
	started bool
	live    int  // members neither ready nor gone, once started
	lost    bool // a member left before it connected
}

// peer is one peer's WebSocket.
type peer struct {
	s      *Server
	ws     *websocket.Conn
	out    chan []byte  // sent to under Server.mu, and only until end
	queued atomic.Int64 // the bytes of out's messages and of the one being written
	remote string       // the client's address, for the log

	// Guarded by Server.mu:
	room  *room
	index int
	ready bool
	gone  bool
	timer *time.Timer
	due   time.Time // when the timer is due, should it fire late

	stopOnce sync.Once
	stop     chan struct{} // closed by end
	code     websocket.StatusCode
	errText  string // the error message to send before closing, if any
	reason   string // the close frame's reason
	written  chan struct{}

	// The handler's own:
	tokens float64
	last   time.Time
}

// New returns a lobby with cfg's limits, or an error naming a field out of range.
func New(cfg Config) (*Server, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.MaxRooms, DefaultMaxRooms)
	def(&cfg.MaxRoomSize, MaxRoomSize)
	def(&cfg.MaxConns, DefaultMaxConns)
	def(&cfg.MaxMessage, DefaultMaxMessage)
	def(&cfg.Burst, DefaultBurst)
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.WaitTimeout == 0 {
		cfg.WaitTimeout = DefaultWaitTimeout
	}
	if cfg.SignalTimeout == 0 {
		cfg.SignalTimeout = DefaultSignalTimeout
	}
	if cfg.MaxQueued == 0 {
		cfg.MaxQueued = max(DefaultMaxQueued, 4*cfg.MaxMessage)
	}
	if cfg.MaxQueuedTotal == 0 {
		cfg.MaxQueuedTotal = max(DefaultMaxQueuedTotal, cfg.MaxQueued)
	}
	switch {
	case cfg.MaxRooms < 1:
		return nil, fmt.Errorf("lobby: MaxRooms %d is less than 1", cfg.MaxRooms)
	case cfg.MaxRoomSize < 2 || cfg.MaxRoomSize > MaxRoomSize:
		return nil, fmt.Errorf("lobby: MaxRoomSize %d is not between 2 and %d", cfg.MaxRoomSize, MaxRoomSize)
	case cfg.MaxConns < 1:
		return nil, fmt.Errorf("lobby: MaxConns %d is less than 1", cfg.MaxConns)
	case cfg.MaxMessage < 1024:
		return nil, fmt.Errorf("lobby: MaxMessage %d is less than 1024 bytes: an SDP description would not fit", cfg.MaxMessage)
	case !(cfg.Rate > 0):
		return nil, fmt.Errorf("lobby: Rate %v is not positive", cfg.Rate)
	case cfg.Burst < 1:
		return nil, fmt.Errorf("lobby: Burst %d is less than 1", cfg.Burst)
	case cfg.WaitTimeout < 0:
		return nil, fmt.Errorf("lobby: WaitTimeout %v is negative", cfg.WaitTimeout)
	case cfg.SignalTimeout < 0:
		return nil, fmt.Errorf("lobby: SignalTimeout %v is negative", cfg.SignalTimeout)
	case cfg.MaxQueued < cfg.MaxMessage+1024:
		return nil, fmt.Errorf("lobby: MaxQueued %d is less than MaxMessage+1024 bytes (%d): a message relayed would not fit", cfg.MaxQueued, cfg.MaxMessage+1024)
	case cfg.MaxQueuedTotal < cfg.MaxQueued:
		return nil, fmt.Errorf("lobby: MaxQueuedTotal %d is less than MaxQueued %d", cfg.MaxQueuedTotal, cfg.MaxQueued)
	}
	s := &Server{cfg: cfg, rooms: map[string]*room{}, peers: map[*peer]struct{}{}, idle: make(chan struct{})}
	s.stats.Refused = map[string]uint64{}
	for _, r := range RefusalReasons() {
		s.stats.Refused[r] = 0
	}
	return s, nil
}

// Stats returns what the lobby holds now and has done so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Peers, st.Rooms, st.Waiting = len(s.peers), len(s.rooms), s.waiting
	st.Queued = int(s.queued.Load())
	st.Refused = make(map[string]uint64, len(s.stats.Refused))
	for k, v := range s.stats.Refused {
		st.Refused[k] = v
	}
	return st
}

// Close closes every peer's socket (telling each that the lobby is shutting down), refuses
// new ones, and waits for their handlers to return, or for ctx to end (then it returns ctx's
// error).
func (s *Server) Close(ctx context.Context) error {
	s.closing()
	select {
	case <-s.idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("lobby: closing: %w", ctx.Err())
	}
}

// closing marks the lobby closed and ends every peer.
func (s *Server) closing() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && s.active == 0 {
		close(s.idle)
	}
	s.closed = true
	for p := range s.peers {
		p.end(websocket.StatusGoingAway, "the lobby is shutting down", "the lobby is shutting down")
	}
}

// ServeHTTP serves one peer: it upgrades the request to a WebSocket and runs the protocol on
// it until the peer has connected with its room, leaves, or is refused.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.enter()
	defer s.exit()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns})
	if err != nil {
		s.logf("lobby: %v: %v", r.RemoteAddr, err) // Accept has answered the request
		return
	}
	ws.SetReadLimit(int64(s.cfg.MaxMessage) + 1) // the handler reads one byte more, and refuses
	p := &peer{s: s, ws: ws, remote: r.RemoteAddr, out: make(chan []byte, queued), stop: make(chan struct{}),
		written: make(chan struct{}), tokens: float64(s.cfg.Burst), last: time.Now()}
	go p.write()
	if s.admit(p) {
		p.read()
		s.leave(p)
	}
	// A peer refused here is not read: the writer tells it why and closes its socket, reading
	// (and dropping) what the peer sent meanwhile as it waits for its side of the closing
	// handshake.
	<-p.written
}

// enter counts a handler running.
func (s *Server) enter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active++
}

// exit counts a handler returned, and tells Close once none runs in a closed lobby.
func (s *Server) exit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.closed && s.active == 0 {
		select {
		case <-s.idle:
		default:
			close(s.idle)
		}
	}
}

// admit counts p among the lobby's peers and starts its timeout, or refuses it if the lobby is
// closing or full, and reports whether it admitted it.
func (s *Server) admit(p *peer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		s.refuseLocked(p, RefusedShutdown, websocket.StatusGoingAway, "the lobby is shutting down")
		return false
	case len(s.peers) >= s.cfg.MaxConns:
		s.refuseLocked(p, RefusedConns, websocket.StatusTryAgainLater,
			fmt.Sprintf("the lobby is full: %d peers are connected", s.cfg.MaxConns))
		return false
	}
	s.peers[p] = struct{}{}
	p.due = time.Now().Add(s.cfg.SignalTimeout)
	p.timer = time.AfterFunc(s.cfg.SignalTimeout, p.timeout)
	return true
}

// read reads the peer's messages and handles each until the socket fails or is closed.
func (p *peer) read() {
	s := p.s
	for {
		typ, r, err := p.ws.Reader(context.Background())
		if err != nil {
			return
		}
		data, err := io.ReadAll(io.LimitReader(r, int64(s.cfg.MaxMessage)+1))
		if err != nil {
			return
		}
		var refusal, why string
		var m signal.Message
		switch {
		case len(data) > s.cfg.MaxMessage:
			refusal, why = RefusedTooBig, fmt.Sprintf("a message of over %d bytes", s.cfg.MaxMessage)
		case !p.allow(time.Now()):
			refusal, why = RefusedRate, fmt.Sprintf("more than %d messages at once or %v a second", s.cfg.Burst, s.cfg.Rate)
		case typ != websocket.MessageText:
			refusal, why = RefusedProtocol, "a binary message: the protocol is JSON text"
		default:
			if err := json.Unmarshal(data, &m); err != nil {
				refusal, why = RefusedProtocol, fmt.Sprintf("malformed JSON: %v", err)
			}
		}
		if !s.handle(p, &m, refusal, why) {
			return
		}
	}
}

// handle carries out the message m of p, or refuses p for refusal and why if refusal is not
// empty or if m breaks the protocol or a limit. It reports whether p may send more: not if it
// was refused, or has been ended meanwhile (timed out, too slow, the lobby closing), whose
// messages are dropped.
func (s *Server) handle(p *peer, m *signal.Message, refusal, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.ended() {
		return false
	}
	if refusal == "" {
		refusal, why = s.handleLocked(p, m)
	}
	if refusal == "" {
		return true
	}
	s.logf("lobby: refused %v: %s", p.remote, why)
	code := websocket.StatusPolicyViolation
	if refusal == RefusedTooBig {
		code = websocket.StatusMessageTooBig
	}
	s.refuseLocked(p, refusal, code, why)
	return false
}

// allow reports whether the peer may send a message at now (a token bucket of Burst tokens
// filled at Rate a second).
func (p *peer) allow(now time.Time) bool {
	cfg := &p.s.cfg
	p.tokens = min(float64(cfg.Burst), p.tokens+now.Sub(p.last).Seconds()*cfg.Rate)
	p.last = now
	if p.tokens < 1 {
		return false
	}
	p.tokens--
	return true
}

// handleLocked carries out one message of p; it returns a refusal's reason and text if the
// message breaks the protocol or a limit. s.mu is held.
func (s *Server) handleLocked(p *peer, m *signal.Message) (refusal, why string) {
	switch m.Type {
	case signal.TypeJoin:
		return s.joinLocked(p, m.Room, m.Size)
	case signal.TypeSignal:
		r := p.room
		switch {
		case r == nil || !r.started:
			return RefusedProtocol, "a signal before the room is full"
		case m.To < 0 || m.To >= r.size || m.To == p.index:
			return RefusedProtocol, fmt.Sprintf("a signal to member %d of a room of %d, from member %d", m.To, r.size, p.index)
		case len(m.Data) == 0:
			return RefusedProtocol, "a signal without data"
		}
		to := r.members[m.To]
		if to.ready || to.gone {
			return "", "" // connected or gone: it needs nothing more
		}
		s.stats.Relayed++
		to.send(signal.Message{Type: signal.TypeSignal, From: p.index, Data: m.Data})
	case signal.TypeReady:
		r := p.room
		if r == nil || !r.started {
			return RefusedProtocol, "ready before the room is full"
		}
		if !p.ready {
			p.ready = true
			p.timer.Stop()
			r.live--
			if r.live == 0 {
				s.forgetLocked(r)
			}
		}
		p.end(websocket.StatusNormalClosure, "", "connected")
	case "":
		return RefusedProtocol, `a message without a "type"`
	default:
		return RefusedProtocol, fmt.Sprintf("unknown message type %.32q", m.Type)
	}
	return "", ""
}

// joinLocked puts p in the room name of size members, opening it if need be, and starts the
// room if p fills it. s.mu is held.
func (s *Server) joinLocked(p *peer, name string, size int) (refusal, why string) {
	if p.room != nil {
		return RefusedProtocol, fmt.Sprintf("already in room %q", p.room.name)
	}
	if err := checkName(name); err != nil {
		return RefusedProtocol, err.Error()
	}
	if size < 2 || size > s.cfg.MaxRoomSize {
		return RefusedProtocol, fmt.Sprintf("a room of %d peers: the size must be between 2 and %d", size, s.cfg.MaxRoomSize)
	}
	r := s.rooms[name]
	switch {
	case r == nil && len(s.rooms) >= s.cfg.MaxRooms:
		return RefusedRooms, fmt.Sprintf("the lobby is full: %d rooms are open", s.cfg.MaxRooms)
	case r == nil:
		r = &room{name: name, size: size}
		s.rooms[name] = r
		s.waiting++
	case r.size != size:
		return RefusedProtocol, fmt.Sprintf("room %q is for %d peers, not %d", name, r.size, size)
	case r.started:
		return RefusedRoomFull, fmt.Sprintf("room %q is full: its %d peers have joined", name, r.size)
	}
	s.stats.Joins++
	p.room = r
	r.members = append(r.members, p)
	if len(r.members) < r.size {
		p.schedule(s.cfg.WaitTimeout)
		s.announceLocked(r)
		return "", ""
	}
	r.started, r.live = true, r.size
	s.waiting--
	s.stats.Filled++
	for i, m := range r.members {
		m.index = i
		m.schedule(s.cfg.SignalTimeout)
		m.send(signal.Message{Type: signal.TypeStart, Room: r.name, Size: r.size, Index: i})
	}
	return "", ""
}

// announceLocked tells the members of a room that is not full how many it has.
func (s *Server) announceLocked(r *room) {
	for _, m := range r.members {
		m.send(signal.Message{Type: signal.TypeJoined, Room: r.name, Size: r.size, Members: len(r.members)})
	}
}

// checkName reports a room name that is empty, too long, not UTF-8 or not printable.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("a join without a room name")
	case len(name) > MaxRoomName:
		return fmt.Errorf("a room name of %d bytes: at most %d", len(name), MaxRoomName)
	case !utf8.ValidString(name):
		return errors.New("a room name that is not UTF-8")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("a room name with the character %U", r)
		}
	}
	return nil
}

// leave takes p out of the lobby once its handler ends: out of a room that is not full, or
// marked gone in a room that is, whose members still signalling are told.
func (s *Server) leave(p *peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.peers, p)
	if p.timer != nil {
		p.timer.Stop()
	}
	p.end(websocket.StatusNormalClosure, "", "")
	r := p.room
	if r == nil || p.ready || p.gone {
		return
	}
	if !r.started {
		for i, m := range r.members {
			if m == p {
				r.members = append(r.members[:i], r.members[i+1:]...)
				break
			}
		}
		if len(r.members) == 0 {
			delete(s.rooms, r.name)
			s.waiting--
			return
		}
		s.announceLocked(r)
		return
	}
	p.gone, r.lost = true, true
	r.live--
	for _, m := range r.members {
		if !m.ready && !m.gone {
			m.send(signal.Message{Type: signal.TypeLeft, From: p.index})
		}
	}
	if r.live == 0 {
		s.forgetLocked(r)
	}
}

// forgetLocked forgets a started room whose members have all connected or left.
func (s *Server) forgetLocked(r *room) {
	if s.rooms[r.name] == r {
		delete(s.rooms, r.name)
	}
	if !r.lost {
		s.stats.Connected++
	}
}

// refuseLocked counts a refusal and closes p's socket after telling it why. s.mu is held.
func (s *Server) refuseLocked(p *peer, reason string, code websocket.StatusCode, why string) {
	s.stats.Refused[reason]++
	p.end(code, why, why)
}

// schedule sets p's timeout to d from now. s.mu is held.
func (p *peer) schedule(d time.Duration) {
	p.due = time.Now().Add(d)
	p.timer.Reset(d)
}

// timeout refuses p for the timeout of the step it is at, unless it has connected or left
// meanwhile.
func (p *peer) timeout() {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.ready || p.gone {
		return
	}
	if _, ok := s.peers[p]; !ok || time.Now().Before(p.due) {
		return // gone, or given a new timeout as this one fired
	}
	var why string
	switch r := p.room; {
	case r == nil:
		why = fmt.Sprintf("no join within %v of connecting", s.cfg.SignalTimeout)
	case !r.started:
		why = fmt.Sprintf("room %q did not fill within %v (%d of %d peers joined)", r.name, s.cfg.WaitTimeout, len(r.members), r.size)
	default:
		why = fmt.Sprintf("the members of room %q did not all connect with each other within %v", r.name, s.cfg.SignalTimeout)
	}
	s.logf("lobby: timed out %v: %s", p.remote, why)
	s.refuseLocked(p, RefusedTimeout, websocket.StatusPolicyViolation, why)
}

// send queues m for p, or closes p as slow if it has not read what was queued before (it
// would go over MaxQueued, MaxQueuedTotal or queued). A peer ended is sent nothing more.
// s.mu is held.
func (p *peer) send(m signal.Message) {
	if p.ended() {
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a Message always encodes
	}
	s, n := p.s, int64(len(b))
	var why string
	switch {
	case p.queued.Load()+n > int64(s.cfg.MaxQueued):
		why = fmt.Sprintf("it did not read: %d bytes waiting for it, and %d more would go over %d",
			p.queued.Load(), n, s.cfg.MaxQueued)
	case s.queued.Load()+n > int64(s.cfg.MaxQueuedTotal):
		why = fmt.Sprintf("it did not read, and the lobby holds %d bytes for peers that do not read: %d more would go over %d",
			s.queued.Load(), n, s.cfg.MaxQueuedTotal)
	case len(p.out) == cap(p.out):
		why = fmt.Sprintf("it did not read: %d messages waiting for it", len(p.out))
	}
	if why != "" {
		s.stats.Refused[RefusedSlow]++
		s.logf("lobby: refused %v: slow: %s", p.remote, why)
		p.end(websocket.StatusPolicyViolation, "", "too slow: "+why)
		// It is not reading: its socket is closed at once, not after a closing handshake it
		// would not read either, and the writer drops what was queued for it.
		go p.ws.CloseNow()
		return
	}
	p.queued.Add(n)
	s.queued.Add(n)
	p.out <- b // not full: only send, under s.mu, sends to it
}

// dequeued counts n bytes of p's written or dropped.
func (p *peer) dequeued(n int) {
	p.queued.Add(-int64(n))
	p.s.queued.Add(-int64(n))
}

// end closes p's socket, after sending errText as an error message if not empty. Only the
// first call counts.
func (p *peer) end(code websocket.StatusCode, errText, reason string) {
	p.stopOnce.Do(func() {
		p.code, p.errText, p.reason = code, errText, reason
		close(p.stop)
	})
}

// ended reports whether end has been called.
func (p *peer) ended() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// write writes p's queued messages until end, then the error message, if any, and closes the
// socket. A write that fails closes the socket; the messages queued after it are dropped, until
// end.
func (p *peer) write() {
	defer close(p.written)
	failed := false
	put := func(b []byte, timeout time.Duration) {
		if !failed {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			err := p.ws.Write(ctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				p.ws.CloseNow()
				failed = true
			}
		}
	}
	for {
		select {
		case b := <-p.out:
			put(b, writeTimeout)
			p.dequeued(len(b))
			continue
		case <-p.stop:
		}
		break
	}
	// The messages queued before end go first: a member's start before its refusal, say.
	// Nothing is queued after end.
	for len(p.out) > 0 {
		b := <-p.out
		put(b, time.Second)
		p.dequeued(len(b))
	}
	if failed {
		return
	}
	if p.errText != "" {
		b, _ := json.Marshal(signal.Message{Type: signal.TypeError, Error: p.errText})
		if put(b, time.Second); failed {
			return
		}
	}
	p.ws.Close(p.code, closeReason(p.reason))
}

// closeReason cuts a close frame's reason to the 123 bytes the protocol allows, on a rune
// boundary.
func closeReason(s string) string {
	const limit = 123
	if len(s) <= limit {
		return s
	}
	s = s[:limit]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}
