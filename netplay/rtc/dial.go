package rtc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"
	"github.com/gameloop-go/gameloop/netplay/rtc/internal/signal"
	"github.com/pion/webrtc/v4"
)

// MaxMembers is the largest room: netplay's most players.
const MaxMembers = 8

// ICEServer is a STUN or TURN server, as the browser's RTCIceServer.
type ICEServer struct {
	// URLs are the server's addresses, such as "stun:stun.example.com:3478" or
	// "turn:turn.example.com:3478?transport=udp".
	URLs []string
	// Username and Credential are a TURN server's.
	Username, Credential string
}

// Options are Dial's settings; the zero value (or nil) is the default.
type Options struct {
	// ICEServers are the STUN and TURN servers the peers use to find a path to each other.
	// None by default: peers on one machine or one network (LAN) connect without them, peers
	// behind NAT on different networks do not (Dial fails once ICE gives up): a STUN server
	// lets most of them find each other's public address, and a TURN server relays for those
	// whose NAT lets nothing else through.
	ICEServers []ICEServer
	// QueueLen is how many received datagrams the Conn holds for reading; past it, they are
	// dropped and counted. 0 means DefaultQueueLen.
	QueueLen int
	// ResolveMDNS makes a native peer resolve the mDNS names (NAME.local) that browsers give
	// as their host candidates in place of their IP addresses, to connect with browsers on the
	// same network; it opens a multicast socket for each peer connection. Off by default. In
	// a browser the browser does it.
	ResolveMDNS bool
}

// LobbyError is a refusal from the lobby: a room that is full or of another size, a lobby
// at its limits, a signalling that took too long.
type LobbyError struct {
	Message string // the lobby's words
}

func (e *LobbyError) Error() string { return "rtc: the lobby says: " + e.Message }

// Dial joins the room of size members at the lobby at lobbyURL (a WebSocket URL, such as
// "ws://127.0.0.1:8089/ws"), and returns, once the room is full and a data channel is open
// with every other member, a Conn whose peers are the other members: a full mesh. The lobby
// numbers the members in the order they joined; Conn.Index is this one's.
//
// All members must ask for the same size (2 to MaxMembers). Dial fails if ctx ends first
// (give it a deadline: a room may never fill), if the lobby refuses (a *LobbyError), if a
// member leaves before it has connected with every other, or if ICE finds no path to a
// member (peers behind NAT on different networks need Options.ICEServers). The lobby sees only
// the signalling; no datagram goes through it.
func Dial(ctx context.Context, lobbyURL, room string, size int, opts *Options) (*Conn, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case size < 2 || size > MaxMembers:
		return nil, fmt.Errorf("rtc: Dial: a room of %d members: the size must be between 2 and %d", size, MaxMembers)
	case room == "":
		return nil, errors.New("rtc: Dial: the room's name is empty")
	case o.QueueLen < 0:
		return nil, fmt.Errorf("rtc: Dial: Options.QueueLen %d is negative", o.QueueLen)
	case o.QueueLen == 0:
		o.QueueLen = DefaultQueueLen
	}
	ws, resp, err := websocket.Dial(ctx, lobbyURL, nil)
	if err != nil {
		return nil, dialError(lobbyURL, resp, err)
	}
	ws.SetReadLimit(1 << 20)
	d := &dialer{ws: ws, room: room, size: size, opts: o, api: newAPI(&o),
		events: make(chan event, 256), quit: make(chan struct{}),
		msgs: make(chan signal.Message, 64), readErr: make(chan error, 1), readerDone: make(chan struct{})}
	for _, s := range o.ICEServers {
		d.config.ICEServers = append(d.config.ICEServers, webrtc.ICEServer{URLs: s.URLs, Username: s.Username, Credential: s.Credential})
	}
	go d.read()
	conn, err := d.run(ctx)
	close(d.quit)
	if err != nil {
		ws.CloseNow()
		<-d.readerDone
		if d.conn != nil {
			err = errors.Join(err, d.conn.Close())
		}
		return nil, err
	}
	// The lobby closes too, having been told ready.
	ws.Close(websocket.StatusNormalClosure, "connected")
	<-d.readerDone
	return conn, nil
}

// LobbyPath is the path at which cmd/lobby and cmd/duelweb serve their lobby's WebSocket.
const LobbyPath = "/ws"

// dialError is the error of a WebSocket dial to the lobby at lobbyURL that failed with err and,
// where the server answered but not as a WebSocket, resp: a server with no lobby at that path
// (such as a URL without the /ws) is told as such.
func dialError(lobbyURL string, resp *http.Response, err error) error {
	if resp == nil || resp.StatusCode == 0 || resp.StatusCode == http.StatusSwitchingProtocols {
		return fmt.Errorf("rtc: dialling the lobby: %w", err)
	}
	status := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	hint := ""
	if u, perr := url.Parse(lobbyURL); perr == nil && u.Path != LobbyPath {
		hint = fmt.Sprintf("; cmd/lobby and cmd/duelweb serve their lobby at %s: %s://%s%s", LobbyPath, u.Scheme, u.Host, LobbyPath)
	}
	return fmt.Errorf("rtc: no lobby at %s: the server answered %s, not a WebSocket%s: %w", lobbyURL, status, hint, err)
}

// event is what pion's callbacks tell Dial.
type event struct {
	kind      eventKind
	member    int
	candidate webrtc.ICECandidateInit
}

type eventKind uint8

const (
	eventCandidate eventKind = iota // a local candidate to send to member
	eventOpen                       // the channel with member is open
	eventFailed                     // the connection with member failed
)

// dialer is a Dial under way.
type dialer struct {
	ws     *websocket.Conn
	room   string
	size   int
	opts   Options
	api    *webrtc.API
	config webrtc.Configuration

	events     chan event
	quit       chan struct{} // closed when Dial returns: the callbacks stop telling it
	msgs       chan signal.Message
	readErr    chan error
	readerDone chan struct{}

	conn      *Conn
	remoteSet []bool
	pending   [][]webrtc.ICECandidateInit // candidates that came before the description
	open      []bool
	opened    int
}

// read reads the lobby's messages until the socket fails or is closed.
func (d *dialer) read() {
	defer close(d.readerDone)
	for {
		_, b, err := d.ws.Read(context.Background())
		if err != nil {
			d.readErr <- err
			return
		}
		var m signal.Message
		if err := json.Unmarshal(b, &m); err != nil {
			d.readErr <- fmt.Errorf("a malformed message from the lobby: %w", err)
			return
		}
		select {
		case d.msgs <- m:
		case <-d.quit:
			return
		}
	}
}

// push tells Dial of an event, unless it has returned.
func (d *dialer) push(e event) {
	select {
	case d.events <- e:
	case <-d.quit:
	}
}

// send sends m to the lobby.
func (d *dialer) send(ctx context.Context, m signal.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("rtc: encoding a message to the lobby: %w", err)
	}
	if err := d.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("rtc: writing to the lobby: %w", err)
	}
	return nil
}

// signal sends p to member to through the lobby.
func (d *dialer) signal(ctx context.Context, to int, p signal.Payload) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("rtc: encoding a signal: %w", err)
	}
	return d.send(ctx, signal.Message{Type: signal.TypeSignal, To: to, Data: b})
}

// run joins the room and connects with every member; it returns the Conn once every channel
// is open.
func (d *dialer) run(ctx context.Context) (*Conn, error) {
	if err := d.send(ctx, signal.Message{Type: signal.TypeJoin, Room: d.room, Size: d.size}); err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("rtc: Dial: %w", ctx.Err())
		case err := <-d.readErr:
			if ctx.Err() != nil {
				// Cancelled: the read failed because the socket was closed for it, and
				// the select happened to see that first.
				return nil, fmt.Errorf("rtc: Dial: %w", ctx.Err())
			}
			// The lobby's error message, if it sent one, came before the close.
			for {
				select {
				case m := <-d.msgs:
					if m.Type == signal.TypeError {
						return nil, &LobbyError{Message: m.Error}
					}
					continue
				default:
				}
				break
			}
			return nil, fmt.Errorf("rtc: the lobby closed the connection: %w", err)
		case m := <-d.msgs:
			if err := d.handle(ctx, &m); err != nil {
				return nil, err
			}
		case e := <-d.events:
			if err := d.event(ctx, e); err != nil {
				return nil, err
			}
		}
		if d.conn != nil && d.opened == d.size-1 {
			if err := d.send(ctx, signal.Message{Type: signal.TypeReady}); err != nil {
				return nil, err
			}
			return d.conn, nil
		}
	}
}

// handle carries out a message of the lobby.
func (d *dialer) handle(ctx context.Context, m *signal.Message) error {
	switch m.Type {
	case signal.TypeError:
		return &LobbyError{Message: m.Error}
	case signal.TypeJoined:
		return nil
	case signal.TypeStart:
		if d.conn != nil || m.Index < 0 || m.Index >= d.size || m.Size != d.size {
			return fmt.Errorf("rtc: the lobby started the room with index %d of %d, asked for %d members", m.Index, m.Size, d.size)
		}
		return d.start(ctx, m.Index)
	case signal.TypeLeft:
		if d.conn != nil && d.valid(m.From) && !d.open[m.From] {
			return fmt.Errorf("rtc: member %d left the room before it connected with this one", m.From)
		}
		return nil
	case signal.TypeSignal:
		if d.conn == nil || !d.valid(m.From) {
			return fmt.Errorf("rtc: the lobby relayed a signal from member %d of a room of %d", m.From, d.size)
		}
		var p signal.Payload
		if err := json.Unmarshal(m.Data, &p); err != nil {
			return fmt.Errorf("rtc: a malformed signal from member %d: %w", m.From, err)
		}
		return d.remote(ctx, m.From, &p)
	}
	return nil // a newer lobby's message: nothing this one needs
}

// valid reports whether i is another member's index.
func (d *dialer) valid(i int) bool { return i >= 0 && i < d.size && i != d.conn.local.Index }

// start makes a peer connection and a data channel with every other member, and offers to
// those of a lower index.
func (d *dialer) start(ctx context.Context, index int) error {
	d.conn = newConn(d.room, index, d.size, d.opts.QueueLen)
	d.remoteSet = make([]bool, d.size)
	d.pending = make([][]webrtc.ICECandidateInit, d.size)
	d.open = make([]bool, d.size)
	for j := range d.size {
		if j == index {
			continue
		}
		if err := d.connect(j); err != nil {
			return err
		}
	}
	for j := range index {
		pc := d.conn.members[j].pc
		offer, err := pc.CreateOffer(nil)
		if err != nil {
			return fmt.Errorf("rtc: an offer to member %d: %w", j, err)
		}
		if err := pc.SetLocalDescription(offer); err != nil {
			return fmt.Errorf("rtc: an offer to member %d: %w", j, err)
		}
		err = d.signal(ctx, j, signal.Payload{SDP: &signal.SessionDescription{Type: offer.Type.String(), SDP: offer.SDP}})
		if err != nil {
			return err
		}
	}
	return nil
}

// connect makes the peer connection with member j and its data channel: unordered, never
// retransmitted, negotiated (both sides make it with the same id, so no message of the
// channel's own protocol must arrive before the first datagram).
func (d *dialer) connect(j int) error {
	pc, err := d.api.NewPeerConnection(d.config)
	if err != nil {
		return fmt.Errorf("rtc: a peer connection with member %d: %w", j, err)
	}
	c := d.conn
	m := &member{pc: pc}
	c.members[j] = m
	pc.OnICECandidate(func(cand *webrtc.ICECandidate) {
		if cand == nil {
			return
		}
		// In a browser, pion's wrapper writes a candidate it cannot read back as text (one of
		// the browser's TCP candidates) as a bare "candidate:", which another browser refuses,
		// failing the whole connection: such a candidate is not sent (the others connect).
		if init := cand.ToJSON(); !bareCandidate(init.Candidate) {
			d.push(event{kind: eventCandidate, member: j, candidate: init})
		}
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		switch s {
		case webrtc.PeerConnectionStateFailed:
			c.memberClosed(j)
			d.push(event{kind: eventFailed, member: j})
		case webrtc.PeerConnectionStateClosed:
			c.memberClosed(j)
		}
	})
	ordered, negotiated := false, true
	var retransmits, id uint16 = 0, 0
	dc, err := pc.CreateDataChannel("netplay", &webrtc.DataChannelInit{
		Ordered: &ordered, MaxRetransmits: &retransmits, Negotiated: &negotiated, ID: &id})
	if err != nil {
		return fmt.Errorf("rtc: a data channel with member %d: %w", j, err)
	}
	m.dc = dc
	dc.OnOpen(func() { d.push(event{kind: eventOpen, member: j}) })
	dc.OnMessage(func(msg webrtc.DataChannelMessage) { c.deliver(j, msg.Data) })
	dc.OnClose(func() { c.memberClosed(j) })
	return nil
}

// remote carries out a signal from member j: its description or a candidate.
func (d *dialer) remote(ctx context.Context, j int, p *signal.Payload) error {
	pc := d.conn.members[j].pc
	switch {
	case p.SDP != nil:
		desc := webrtc.SessionDescription{Type: webrtc.NewSDPType(p.SDP.Type), SDP: p.SDP.SDP}
		wantType := webrtc.SDPTypeAnswer
		if j > d.conn.local.Index {
			wantType = webrtc.SDPTypeOffer
		}
		if desc.Type != wantType || d.remoteSet[j] {
			return fmt.Errorf("rtc: member %d sent an SDP %q; expected one %v", j, p.SDP.Type, wantType)
		}
		if err := pc.SetRemoteDescription(desc); err != nil {
			return fmt.Errorf("rtc: the description of member %d: %w", j, err)
		}
		d.remoteSet[j] = true
		for _, c := range d.pending[j] {
			if err := pc.AddICECandidate(c); err != nil {
				return fmt.Errorf("rtc: a candidate of member %d: %w", j, err)
			}
		}
		d.pending[j] = nil
		if desc.Type == webrtc.SDPTypeOffer {
			answer, err := pc.CreateAnswer(nil)
			if err != nil {
				return fmt.Errorf("rtc: an answer to member %d: %w", j, err)
			}
			if err := pc.SetLocalDescription(answer); err != nil {
				return fmt.Errorf("rtc: an answer to member %d: %w", j, err)
			}
			return d.signal(ctx, j, signal.Payload{SDP: &signal.SessionDescription{Type: answer.Type.String(), SDP: answer.SDP}})
		}
	case p.Candidate != nil && bareCandidate(p.Candidate.Candidate):
		// A candidate with nothing in it, from a peer that sends them: no path to add.
	case p.Candidate != nil:
		c := webrtc.ICECandidateInit{Candidate: p.Candidate.Candidate, SDPMid: p.Candidate.SDPMid,
			SDPMLineIndex: p.Candidate.SDPMLineIndex, UsernameFragment: p.Candidate.UsernameFragment}
		if !d.remoteSet[j] {
			d.pending[j] = append(d.pending[j], c)
			return nil
		}
		if err := pc.AddICECandidate(c); err != nil {
			return fmt.Errorf("rtc: a candidate of member %d: %w", j, err)
		}
	}
	return nil
}

// event carries out what a callback told.
func (d *dialer) event(ctx context.Context, e event) error {
	switch e.kind {
	case eventCandidate:
		c := e.candidate
		return d.signal(ctx, e.member, signal.Payload{Candidate: &signal.Candidate{Candidate: c.Candidate,
			SDPMid: c.SDPMid, SDPMLineIndex: c.SDPMLineIndex, UsernameFragment: c.UsernameFragment}})
	case eventOpen:
		if !d.open[e.member] {
			d.open[e.member] = true
			d.opened++
		}
	case eventFailed:
		if !d.open[e.member] {
			return fmt.Errorf("rtc: ICE found no path to member %d (peers behind NAT on different networks need STUN or TURN servers: Options.ICEServers)", e.member)
		}
	}
	return nil
}

// bareCandidate reports whether an ICE candidate's text is "candidate:" with nothing after it:
// what pion's wrapper of a browser's RTCPeerConnection makes of a candidate it cannot write as
// text. Browsers refuse it.
func bareCandidate(text string) bool { return strings.TrimSpace(text) == "candidate:" }
