package lobby

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gameloop-go/gameloop/netplay/rtc/internal/signal"
)

// guard bounds every wait: it fails a test that hangs, and never decides a pass.
const guard = 2 * time.Minute

// start serves a lobby with cfg on 127.0.0.1 until the test ends and returns its URL.
func start(t testing.TB, cfg Config) (string, *Server) {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			t.Error(err)
		}
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http"), l
}

// client is a raw WebSocket client of the lobby.
type client struct {
	t  testing.TB
	ws *websocket.Conn
}

func dial(t testing.TB, url string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	return &client{t: t, ws: ws}
}

// sendRaw sends b as a text message.
func (c *client) sendRaw(b []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) send(m signal.Message) {
	c.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(b)
}

// next reads the next message, failing the test if the socket closes first.
func (c *client) next() signal.Message {
	c.t.Helper()
	m, err := c.read()
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

func (c *client) read() (signal.Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	_, b, err := c.ws.Read(ctx)
	if err != nil {
		return signal.Message{}, err
	}
	var m signal.Message
	if err := json.Unmarshal(b, &m); err != nil {
		return signal.Message{}, fmt.Errorf("%q: %w", b, err)
	}
	return m, nil
}

// expect reads until a message of type typ and returns it, failing on an error message.
func (c *client) expect(typ string) signal.Message {
	c.t.Helper()
	for {
		m := c.next()
		if m.Type == typ {
			return m
		}
		if m.Type == signal.TypeError {
			c.t.Fatalf("waiting for %s: error %q", typ, m.Error)
		}
	}
}

// refused reads until the lobby's error message, checks that it holds want, and that the
// socket is then closed with code.
func (c *client) refused(want string, code websocket.StatusCode) {
	c.t.Helper()
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("closed before an error message holding %q: %v", want, err)
		}
		if m.Type != signal.TypeError {
			continue
		}
		if !strings.Contains(m.Error, want) {
			c.t.Errorf("error %q, want it to hold %q", m.Error, want)
		}
		break
	}
	_, err := c.read()
	if got := websocket.CloseStatus(err); got != code {
		c.t.Errorf("after the error: %v (status %v), want a close with %v", err, got, code)
	}
}

// closed reads until the socket closes and returns its close status.
func (c *client) closed() websocket.StatusCode {
	for {
		if _, err := c.read(); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

// TestJoinRelay: two peers join a room; the first is told it waits; once full each is told
// its index; a signal goes from one to the other unread; a ready peer's socket is closed, and
// the room is forgotten once both are.
func TestJoinRelay(t *testing.T) {
	url, l := start(t, Config{})
	a, b := dial(t, url), dial(t, url)
	a.send(signal.Message{Type: signal.TypeJoin, Room: "r", Size: 2})
	if m := a.expect(signal.TypeJoined); m.Members != 1 || m.Size != 2 || m.Room != "r" {
		t.Errorf("joined: %+v", m)
	}
	b.send(signal.Message{Type: signal.TypeJoin, Room: "r", Size: 2})
	ma, mb := a.expect(signal.TypeStart), b.expect(signal.TypeStart)
	if ma.Index != 0 || mb.Index != 1 || ma.Size != 2 || mb.Room != "r" {
		t.Errorf("start: %+v and %+v", ma, mb)
	}
	data := json.RawMessage(`{"sdp":{"type":"offer","sdp":"v=0"}}`)
	b.send(signal.Message{Type: signal.TypeSignal, To: 0, Data: data})
	if m := a.expect(signal.TypeSignal); m.From != 1 || string(m.Data) != string(data) {
		t.Errorf("relayed: %+v", m)
	}
	a.send(signal.Message{Type: signal.TypeSignal, To: 1, Data: json.RawMessage(`{"candidate":{"candidate":"x"}}`)})
	b.expect(signal.TypeSignal)
	a.send(signal.Message{Type: signal.TypeReady})
	if code := a.closed(); code != websocket.StatusNormalClosure {
		t.Errorf("a ready peer's socket closed with %v", code)
	}
	if st := l.Stats(); st.Rooms != 1 || st.Connected != 0 {
		t.Errorf("one member ready: %+v", st)
	}
	b.send(signal.Message{Type: signal.TypeReady})
	b.closed()
	waitStats(t, l, func(st Stats) bool { return st.Rooms == 0 && st.Peers == 0 })
	if st := l.Stats(); st.Connected != 1 || st.Filled != 1 || st.Joins != 2 || st.Relayed != 2 {
		t.Errorf("after: %+v", st)
	}
	// The name is free again.
	c := dial(t, url)
	c.send(signal.Message{Type: signal.TypeJoin, Room: "r", Size: 3})
	c.expect(signal.TypeJoined)
}

// waitStats waits until ok holds of the lobby's stats.
func waitStats(t *testing.T, l *Server, ok func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !ok(l.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", l.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestMemberLeft: a member that leaves a full room before it has connected is announced to
// the others; one that leaves a room not full frees its place.
func TestMemberLeft(t *testing.T) {
	url, l := start(t, Config{})
	a, b, c := dial(t, url), dial(t, url), dial(t, url)
	a.send(signal.Message{Type: signal.TypeJoin, Room: "three", Size: 3})
	a.expect(signal.TypeJoined)
	b.send(signal.Message{Type: signal.TypeJoin, Room: "three", Size: 3})
	b.expect(signal.TypeJoined)
	if m := a.expect(signal.TypeJoined); m.Members != 2 {
		t.Errorf("after b joined: %+v", m)
	}
	b.ws.Close(websocket.StatusNormalClosure, "")
	if m := a.expect(signal.TypeJoined); m.Members != 1 {
		t.Errorf("after b left: %+v", m)
	}
	b = dial(t, url)
	b.send(signal.Message{Type: signal.TypeJoin, Room: "three", Size: 3})
	b.expect(signal.TypeJoined) // before c joins: c is member 2
	c.send(signal.Message{Type: signal.TypeJoin, Room: "three", Size: 3})
	for _, p := range []*client{a, b, c} {
		p.expect(signal.TypeStart)
	}
	c.ws.Close(websocket.StatusNormalClosure, "")
	for _, p := range []*client{a, b} {
		if m := p.expect(signal.TypeLeft); m.From != 2 {
			t.Errorf("left: %+v", m)
		}
	}
	a.ws.Close(websocket.StatusNormalClosure, "")
	b.ws.Close(websocket.StatusNormalClosure, "")
	waitStats(t, l, func(st Stats) bool { return st.Rooms == 0 && st.Peers == 0 })
	if st := l.Stats(); st.Connected != 0 || st.Filled != 1 {
		t.Errorf("after: %+v", st)
	}
}

// TestRefusals: every bad input gets an error message saying what was wrong and a closed
// socket, and is counted; the lobby serves on.
func TestRefusals(t *testing.T) {
	url, l := start(t, Config{Burst: 5, Rate: 1e-9})
	// A room of two, full and signalling, for the cases that need one.
	full1, full2 := dial(t, url), dial(t, url)
	full1.send(signal.Message{Type: signal.TypeJoin, Room: "full", Size: 2})
	full2.send(signal.Message{Type: signal.TypeJoin, Room: "full", Size: 2})
	fullStart := full1.expect(signal.TypeStart)
	full2.expect(signal.TypeStart)
	join := func(room string, size int) string {
		return fmt.Sprintf(`{"type":"join","room":%q,"size":%d}`, room, size)
	}
	for _, tc := range []struct {
		name   string
		send   []string
		want   string
		reason string
		code   websocket.StatusCode
	}{
		{"malformed JSON", []string{`{"type":`}, "malformed JSON", RefusedProtocol, websocket.StatusPolicyViolation},
		{"not an object", []string{`[1,2]`}, "malformed JSON", RefusedProtocol, websocket.StatusPolicyViolation},
		{"no type", []string{`{"room":"x"}`}, `without a "type"`, RefusedProtocol, websocket.StatusPolicyViolation},
		{"unknown type", []string{`{"type":"teleport"}`}, `unknown message type "teleport"`, RefusedProtocol, websocket.StatusPolicyViolation},
		{"signal before joining", []string{`{"type":"signal","to":1,"data":{}}`}, "before the room is full", RefusedProtocol, websocket.StatusPolicyViolation},
		{"ready before joining", []string{`{"type":"ready"}`}, "ready before the room is full", RefusedProtocol, websocket.StatusPolicyViolation},
		{"size 1", []string{join("x", 1)}, "a room of 1 peers: the size must be between 2 and 8", RefusedProtocol, websocket.StatusPolicyViolation},
		{"size 9", []string{join("x", 9)}, "a room of 9 peers", RefusedProtocol, websocket.StatusPolicyViolation},
		{"no room name", []string{join("", 2)}, "without a room name", RefusedProtocol, websocket.StatusPolicyViolation},
		{"long room name", []string{join(strings.Repeat("r", 65), 2)}, "a room name of 65 bytes", RefusedProtocol, websocket.StatusPolicyViolation},
		{"control character", []string{join("a\nb", 2)}, "U+000A", RefusedProtocol, websocket.StatusPolicyViolation},
		{"joining twice", []string{join("twice", 3), join("again", 3)}, `already in room "twice"`, RefusedProtocol, websocket.StatusPolicyViolation},
		{"a third peer in a room of two", []string{join("full", 2)}, `room "full" is full: its 2 peers have joined`, RefusedRoomFull, websocket.StatusPolicyViolation},
		{"another size than the room's", []string{join("full", 3)}, `room "full" is for 2 peers, not 3`, RefusedProtocol, websocket.StatusPolicyViolation},
		{"a message of 1 MB", []string{`{"type":"join","room":"` + strings.Repeat("x", 1<<20) + `"}`}, "a message of over 65536 bytes", RefusedTooBig, websocket.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := l.Stats().Refused[tc.reason]
			c := dial(t, url)
			for _, m := range tc.send {
				c.sendRaw([]byte(m))
			}
			c.refused(tc.want, tc.code)
			if got := l.Stats().Refused[tc.reason]; got != before+1 {
				t.Errorf("refusals for %s: %d, want %d", tc.reason, got, before+1)
			}
		})
	}
	t.Run("binary message", func(t *testing.T) {
		c := dial(t, url)
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if err := c.ws.Write(ctx, websocket.MessageBinary, []byte(`{"type":"ready"}`)); err != nil {
			t.Fatal(err)
		}
		c.refused("a binary message", websocket.StatusPolicyViolation)
	})
	t.Run("rate", func(t *testing.T) {
		before := l.Stats().Refused[RefusedRate]
		c, other := dial(t, url), dial(t, url)
		c.send(signal.Message{Type: signal.TypeJoin, Room: "rate", Size: 2})
		other.send(signal.Message{Type: signal.TypeJoin, Room: "rate", Size: 2})
		m := c.expect(signal.TypeStart)
		// Burst 5, the join one of them, and the rate refills nothing in the test's lifetime.
		for range 5 {
			c.send(signal.Message{Type: signal.TypeSignal, To: 1 - m.Index, Data: json.RawMessage(`{}`)})
		}
		c.refused("more than 5 messages at once", websocket.StatusPolicyViolation)
		if got := l.Stats().Refused[RefusedRate]; got != before+1 {
			t.Errorf("rate refusals: %d, want %d", got, before+1)
		}
	})
	// The room of two is still there, and signals.
	full1.send(signal.Message{Type: signal.TypeSignal, To: 1 - fullStart.Index, Data: json.RawMessage(`{}`)})
	full2.expect(signal.TypeSignal)
}

// TestLimits: MaxRooms, MaxConns and the timeouts, each refused with a message that says so.
func TestLimits(t *testing.T) {
	t.Run("rooms", func(t *testing.T) {
		url, l := start(t, Config{MaxRooms: 2})
		for _, room := range []string{"a", "b"} {
			c := dial(t, url)
			c.send(signal.Message{Type: signal.TypeJoin, Room: room, Size: 2})
			c.expect(signal.TypeJoined)
		}
		c := dial(t, url)
		c.send(signal.Message{Type: signal.TypeJoin, Room: "c", Size: 2})
		c.refused("the lobby is full: 2 rooms are open", websocket.StatusPolicyViolation)
		// A join to a room already open is not a new room.
		d := dial(t, url)
		d.send(signal.Message{Type: signal.TypeJoin, Room: "a", Size: 2})
		d.expect(signal.TypeStart)
		if st := l.Stats(); st.Refused[RefusedRooms] != 1 {
			t.Errorf("refusals: %v", st.Refused)
		}
	})
	t.Run("conns", func(t *testing.T) {
		url, l := start(t, Config{MaxConns: 2})
		dial(t, url)
		dial(t, url)
		waitStats(t, l, func(st Stats) bool { return st.Peers == 2 })
		c := dial(t, url)
		c.refused("the lobby is full: 2 peers are connected", websocket.StatusTryAgainLater)
	})
	t.Run("no join", func(t *testing.T) {
		url, _ := start(t, Config{SignalTimeout: 10 * time.Millisecond})
		c := dial(t, url)
		c.refused("no join within 10ms of connecting", websocket.StatusPolicyViolation)
	})
	t.Run("room not filled", func(t *testing.T) {
		url, l := start(t, Config{WaitTimeout: 10 * time.Millisecond})
		c := dial(t, url)
		c.send(signal.Message{Type: signal.TypeJoin, Room: "lonely", Size: 3})
		c.refused(`room "lonely" did not fill within 10ms (1 of 3 peers joined)`, websocket.StatusPolicyViolation)
		waitStats(t, l, func(st Stats) bool { return st.Rooms == 0 && st.Refused[RefusedTimeout] == 1 })
	})
	t.Run("signalling unfinished", func(t *testing.T) {
		url, l := start(t, Config{SignalTimeout: 200 * time.Millisecond})
		a, b := dial(t, url), dial(t, url)
		a.send(signal.Message{Type: signal.TypeJoin, Room: "slow", Size: 2})
		b.send(signal.Message{Type: signal.TypeJoin, Room: "slow", Size: 2})
		for _, c := range []*client{a, b} {
			c.refused(`the members of room "slow" did not all connect with each other within 200ms`, websocket.StatusPolicyViolation)
		}
		waitStats(t, l, func(st Stats) bool { return st.Rooms == 0 && st.Peers == 0 })
	})
}

// TestClose: Close tells every peer the lobby is shutting down, closes their sockets, waits
// for their handlers and refuses new peers.
func TestClose(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	var clients []*client
	for i := range 5 {
		c := dial(t, url)
		c.send(signal.Message{Type: signal.TypeJoin, Room: fmt.Sprint(i / 2), Size: 2})
		clients = append(clients, c)
	}
	waitStats(t, l, func(st Stats) bool { return st.Joins == 5 })
	// The clients read as Close closes them (a client that does not read holds Close up
	// for 5 s, waiting for its side of the closing handshake).
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.refused("the lobby is shutting down", websocket.StatusGoingAway) })
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	c := dial(t, url)
	c.refused("the lobby is shutting down", websocket.StatusGoingAway)
}

func TestNewErrors(t *testing.T) {
	for _, cfg := range []Config{{MaxRooms: -1}, {MaxRoomSize: 9}, {MaxRoomSize: 1}, {MaxConns: -1},
		{MaxMessage: 100}, {Rate: -1}, {Burst: -1}, {WaitTimeout: -1}, {SignalTimeout: -1},
		{MaxQueued: DefaultMaxMessage}, {MaxQueued: 1 << 20, MaxQueuedTotal: 1 << 19}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted it", cfg)
		}
	}
}

// TestManyRooms: rooms joined, signalled and connected at once, and the lobby back to empty;
// BenchmarkRooms measures it at 1,000.
func TestManyRooms(t *testing.T) {
	url, l := start(t, Config{})
	if err := rooms(url, 50, 0); err != nil {
		t.Fatal(err)
	}
	waitStats(t, l, func(st Stats) bool { return st.Rooms == 0 && st.Peers == 0 })
	if st := l.Stats(); st.Connected != 50 {
		t.Errorf("%+v", st)
	}
}

// rooms runs n rooms of two raw peers each at once, from the first join to the last ready:
// each joins, relays a signal of size bytes each way (0 for a small one), and says ready.
func rooms(url string, n, size int) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	payload, err := json.Marshal(signal.Payload{SDP: &signal.SessionDescription{Type: "offer", SDP: strings.Repeat("a", size)}})
	if err != nil {
		return err
	}
	for r := range n {
		for range 2 {
			wg.Go(func() {
				if err := peerRun(url, fmt.Sprintf("room%d", r), payload); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// peerRun is one raw peer of rooms.
func peerRun(url, room string, payload []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return err
	}
	defer ws.CloseNow()
	write := func(m signal.Message) error {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return ws.Write(ctx, websocket.MessageText, b)
	}
	read := func(typ string) (signal.Message, error) {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return signal.Message{}, err
			}
			var m signal.Message
			if err := json.Unmarshal(b, &m); err != nil {
				return m, err
			}
			if m.Type == typ {
				return m, nil
			}
			if m.Type == signal.TypeError {
				return m, errors.New(m.Error)
			}
		}
	}
	if err := write(signal.Message{Type: signal.TypeJoin, Room: room, Size: 2}); err != nil {
		return err
	}
	start, err := read(signal.TypeStart)
	if err != nil {
		return err
	}
	if err := write(signal.Message{Type: signal.TypeSignal, To: 1 - start.Index, Data: payload}); err != nil {
		return err
	}
	if _, err := read(signal.TypeSignal); err != nil {
		return err
	}
	if err := write(signal.Message{Type: signal.TypeReady}); err != nil {
		return err
	}
	// The other's ready may come after this one's: the lobby closes this socket either way.
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
				return nil
			}
			return err
		}
	}
}

// rawPeer is a peer over a bare TCP connection: it sends its WebSocket upgrade and its first
// messages in one write, as a client may, and reads only when told to.
type rawPeer struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

// dialRaw connects to the lobby at url and sends, in one write, the upgrade request and msgs
// as masked text frames; it does not wait for the answer.
func dialRaw(t *testing.T, url string, msgs ...string) *rawPeer {
	t.Helper()
	host := strings.TrimPrefix(url, "ws://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", host)
	for _, m := range msgs {
		b.Write(maskedFrame([]byte(m)))
	}
	if _, err := conn.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	return &rawPeer{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// maskedFrame is a client's text frame holding p (with a mask of zeros: the protocol asks for
// a mask, not a random one from a test).
func maskedFrame(p []byte) []byte {
	var f []byte
	switch n := len(p); {
	case n < 126:
		f = []byte{0x81, 0x80 | byte(n)}
	case n < 1<<16:
		f = []byte{0x81, 0x80 | 126, byte(n >> 8), byte(n)}
	default:
		f = []byte{0x81, 0x80 | 127}
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	f = append(f, 0, 0, 0, 0)
	return append(f, p...)
}

// readUntil reads what the lobby sends until it holds want, failing if the connection ends
// first.
func (p *rawPeer) readUntil(want string) {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(guard))
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte(want)) {
		n, err := p.r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			p.t.Fatalf("read %q, then %v; want %q", got, err, want)
		}
	}
}

// statsWithin returns the lobby's stats, failing the test if Stats does not return.
func statsWithin(t *testing.T, l *Server) Stats {
	t.Helper()
	got := make(chan Stats, 1)
	go func() { got <- l.Stats() }()
	select {
	case st := <-got:
		return st
	case <-time.After(guard):
		t.Fatal("Stats did not return: the lobby's lock is held")
		return Stats{}
	}
}

// TestRefusedWithJoin: a peer refused as it connects (the lobby at MaxConns, or closing) whose
// join came in the same write as its upgrade is refused like any other; the lobby serves on,
// and its Stats and Close return.
func TestRefusedWithJoin(t *testing.T) {
	join := `{"type":"join","room":"r","size":2}`
	t.Run("conns", func(t *testing.T) {
		l, err := New(Config{MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(l)
		defer srv.Close()
		url := "ws" + strings.TrimPrefix(srv.URL, "http")
		first := dial(t, url)
		first.send(signal.Message{Type: signal.TypeJoin, Room: "r", Size: 2})
		first.expect(signal.TypeJoined)
		for range 3 {
			p := dialRaw(t, url, join)
			p.readUntil("the lobby is full: 1 peers are connected")
			p.conn.Close()
		}
		waitStatsWithin(t, l, func(st Stats) bool { return st.Refused[RefusedConns] == 3 })
		if st := statsWithin(t, l); st.Peers != 1 || st.Joins != 1 {
			t.Errorf("stats %+v", st)
		}
		// The lobby serves on: once the first has left, another takes its place.
		first.ws.CloseNow()
		waitStatsWithin(t, l, func(st Stats) bool { return st.Peers == 0 })
		next := dial(t, url)
		next.send(signal.Message{Type: signal.TypeJoin, Room: "r", Size: 2})
		next.expect(signal.TypeJoined)
		closeWithin(t, l)
	})
	t.Run("closing", func(t *testing.T) {
		l, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(l)
		defer srv.Close()
		url := "ws" + strings.TrimPrefix(srv.URL, "http")
		closeWithin(t, l)
		for range 3 {
			p := dialRaw(t, url, join)
			p.readUntil("the lobby is shutting down")
			p.conn.Close()
		}
		waitStatsWithin(t, l, func(st Stats) bool { return st.Refused[RefusedShutdown] == 3 })
		if st := statsWithin(t, l); st.Peers != 0 || st.Joins != 0 || st.Rooms != 0 {
			t.Errorf("stats %+v", st)
		}
		closeWithin(t, l)
	})
}

// waitStatsWithin is waitStats with every call to Stats bounded.
func waitStatsWithin(t *testing.T, l *Server, ok func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for st := statsWithin(t, l); !ok(st); st = statsWithin(t, l) {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
}

// closeWithin closes the lobby, failing the test if it does not return.
func closeWithin(t *testing.T, l *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects a lobby's log.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// nonReader fills a room of two: a client that reads its start, and a raw peer that never
// reads. It returns the client and its index.
func nonReader(t *testing.T, url, room string) (*client, int) {
	t.Helper()
	a := dial(t, url)
	a.send(signal.Message{Type: signal.TypeJoin, Room: room, Size: 2})
	a.expect(signal.TypeJoined)
	dialRaw(t, url, fmt.Sprintf(`{"type":"join","room":%q,"size":2}`, room))
	return a, a.expect(signal.TypeStart).Index
}

// relay sends a signal of about 60 KB from a to the other member of its room and waits until
// the lobby has queued it (or refused the other member for it).
func relay(t *testing.T, l *Server, a *client, index int) {
	t.Helper()
	data, err := json.Marshal(signal.Payload{SDP: &signal.SessionDescription{Type: "offer", SDP: strings.Repeat("a", 60_000)}})
	if err != nil {
		t.Fatal(err)
	}
	before := statsWithin(t, l).Relayed
	a.send(signal.Message{Type: signal.TypeSignal, To: 1 - index, Data: data})
	waitStatsWithin(t, l, func(st Stats) bool { return st.Relayed == before+1 })
}

// TestSlowPeer: a peer that does not read what it is sent is closed as slow once MaxQueued
// bytes wait for it, or once the lobby holds MaxQueuedTotal bytes for all its peers; the
// lobby never holds more, and drops what waited for the peer.
func TestSlowPeer(t *testing.T) {
	t.Run("peer", func(t *testing.T) {
		var log logBuffer
		url, l := start(t, Config{Rate: 1e9, Burst: 1 << 20, Logf: log.logf}) // MaxQueued 256 KB
		a, index := nonReader(t, url, "slow")
		for statsWithin(t, l).Refused[RefusedSlow] == 0 {
			relay(t, l, a, index)
			if q := statsWithin(t, l).Queued; q > DefaultMaxQueued {
				t.Fatalf("%d bytes queued, over MaxQueued", q)
			}
		}
		if !strings.Contains(log.String(), "slow: it did not read: ") {
			t.Errorf("log:\n%s", log.String())
		}
		// Its place and its bytes are freed; the other member is told it left.
		waitStatsWithin(t, l, func(st Stats) bool { return st.Peers == 1 && st.Queued == 0 })
		if m := a.expect(signal.TypeLeft); m.From != 1-index {
			t.Errorf("left: %+v", m)
		}
	})
	t.Run("total", func(t *testing.T) {
		var log logBuffer
		const total = 400 << 10
		url, l := start(t, Config{Rate: 1e9, Burst: 1 << 20, MaxQueuedTotal: total, Logf: log.logf})
		a1, index1 := nonReader(t, url, "one")
		a2, index2 := nonReader(t, url, "two")
		// Three messages wait for the first (of four it may have), once its socket's buffers
		// are full.
		for statsWithin(t, l).Queued < 3*60_000 {
			relay(t, l, a1, index1)
		}
		// The second is refused for the total before it has as many.
		for statsWithin(t, l).Refused[RefusedSlow] == 0 {
			relay(t, l, a2, index2)
			if q := statsWithin(t, l).Queued; q > total {
				t.Fatalf("%d bytes queued, over MaxQueuedTotal", q)
			}
		}
		if !strings.Contains(log.String(), "slow: it did not read, and the lobby holds ") {
			t.Errorf("log:\n%s", log.String())
		}
		if m := a2.expect(signal.TypeLeft); m.From != 1-index2 {
			t.Errorf("left: %+v", m)
		}
		if st := statsWithin(t, l); st.Peers != 3 || st.Refused[RefusedSlow] != 1 {
			t.Errorf("stats %+v", st)
		}
	})
}

// TestCloseWhilePeersArrive: peers keep arriving while Close waits for the handlers: Close
// returns, each late peer is refused as the lobby shuts down, and no handler's start races
// Close's wait (a WaitGroup would: its Add must not run while a Wait may, which the race
// detector and the sync package report).
func TestCloseWhilePeersArrive(t *testing.T) {
	for range 5 {
		l, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(l)
		url := "ws" + strings.TrimPrefix(srv.URL, "http")
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), guard)
				defer cancel()
				if ws, _, err := websocket.Dial(ctx, url, nil); err == nil {
					_, _, _ = ws.Read(ctx) // the lobby closes it: read until then
					ws.CloseNow()
				}
			})
		}
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		wg.Wait()
		srv.Close()
	}
}
