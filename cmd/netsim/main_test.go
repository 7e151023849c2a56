package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// TestMain runs the command itself when the test binary is started as it, so that exit codes
// are tested on the real main.
func TestMain(m *testing.M) {
	if os.Getenv("NETSIM_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// echoServer answers every UDP packet with the same bytes, and counts them.
type echoServer struct {
	conn     *net.UDPConn
	received atomic.Int64
	peers    sync.Map // the source addresses seen
	done     chan struct{}
}

func newEchoServer(t *testing.T) *echoServer {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s := &echoServer{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, maxDatagram)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			s.received.Add(1)
			s.peers.Store(from, true)
			conn.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		<-s.done
	})
	return s
}

// started is a proxy running in the test.
type started struct {
	*proxy
	addr    string
	cancel  context.CancelFunc
	done    chan error
	stopped bool
	out     bytes.Buffer // read only once stopped
}

// startProxy runs the command with args, plus -listen and -to, until stop.
func startProxy(t *testing.T, to string, args ...string) *started {
	t.Helper()
	return startProxyWith(t, to, nil, args...)
}

// startProxyWith is startProxy, with setup, if not nil, handed the proxy before it forwards
// anything (to set its hooks).
func startProxyWith(t *testing.T, to string, setup func(*proxy), args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	p := &started{cancel: cancel, done: make(chan error, 1)}
	ready := make(chan *proxy, 1)
	args = append([]string{"-listen", "127.0.0.1:0", "-to", to}, args...)
	go func() {
		p.done <- run(ctx, args, &p.out, &p.out, func(px *proxy) {
			if setup != nil {
				setup(px)
			}
			ready <- px
		})
	}()
	select {
	case p.proxy = <-ready:
		p.addr = p.listen.LocalAddr().String()
	case err := <-p.done:
		t.Fatalf("netsim %v: %v", args, err)
	}
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop ends the proxy and returns what it printed.
func (p *started) stop(t *testing.T) string {
	t.Helper()
	if !p.stopped {
		p.stopped = true
		p.cancel()
		if err := <-p.done; err != nil {
			t.Fatalf("netsim: %v\n%s", err, p.out.String())
		}
	}
	return p.out.String()
}

// dial opens a client socket to the proxy.
func dial(t *testing.T, addr string) *net.UDPConn {
	t.Helper()
	raddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, raddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// patience bounds every wait for a packet that should come: generous, so that a loaded machine
// cannot fail a test; a test that passes never waits this long.
const patience = 20 * time.Second

// receive reads n packets from c, failing the test if they do not come within patience.
func receive(t *testing.T, c *net.UDPConn, n int) []string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	var got []string
	buf := make([]byte, maxDatagram)
	for len(got) < n {
		k, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d of %d packets: %v", len(got), n, err)
		}
		got = append(got, string(buf[:k]))
	}
	return got
}

// counts are one line of the summary.
type counts struct {
	in, inBytes, dropped, duplicated, reordered, out, outBytes int
	left, overflow, errors                                     int
}

var (
	summaryLine = regexp.MustCompile(`(?m)^(client->server|server->client): (\d+) packets, (\d+) bytes in; dropped (\d+), duplicated (\d+), reordered (\d+); (\d+) packets, (\d+) bytes out(.*)$`)
	leftRE      = regexp.MustCompile(`; (\d+) still in flight at the end`)
	overflowRE  = regexp.MustCompile(`; (\d+) dropped with too much in flight`)
	errorsRE    = regexp.MustCompile(`; (\d+) send errors`)
)

// parseSummary parses the summary's two lines, and checks that each adds up: what came in,
// less what was dropped, plus the copies, is what went out, is in flight or was dropped on the
// way out.
func parseSummary(t *testing.T, out string) (up, down counts) {
	t.Helper()
	ms := summaryLine.FindAllStringSubmatch(out, -1)
	if len(ms) != 2 {
		t.Fatalf("no summary of both directions in:\n%s", out)
	}
	for _, m := range ms {
		var v [7]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+2])
		}
		c := counts{in: v[0], inBytes: v[1], dropped: v[2], duplicated: v[3], reordered: v[4], out: v[5], outBytes: v[6]}
		for re, f := range map[*regexp.Regexp]*int{leftRE: &c.left, overflowRE: &c.overflow, errorsRE: &c.errors} {
			if x := re.FindStringSubmatch(m[9]); x != nil {
				*f, _ = strconv.Atoi(x[1])
			}
		}
		if c.in-c.dropped+c.duplicated != c.out+c.left+c.overflow+c.errors {
			t.Errorf("%s does not add up: %+v\n%s", m[1], c, out)
		}
		if m[1] == "client->server" {
			up = c
		} else {
			down = c
		}
	}
	return up, down
}

func TestForwardsBothWaysForTwoClients(t *testing.T) {
	echo := newEchoServer(t)
	p := startProxy(t, echo.conn.LocalAddr().String())
	const n = 50
	clients := []*net.UDPConn{dial(t, p.addr), dial(t, p.addr)}
	for i := range n {
		for k, c := range clients {
			if _, err := fmt.Fprintf(c, "client %d packet %d", k, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, c := range clients {
		got := receive(t, c, n)
		for _, msg := range got {
			if !strings.HasPrefix(msg, fmt.Sprintf("client %d ", k)) {
				t.Fatalf("client %d got %q, the other client's reply", k, msg)
			}
		}
	}
	peers := 0
	echo.peers.Range(func(any, any) bool { peers++; return true })
	if peers != 2 {
		t.Errorf("the server saw %d source addresses, want one per client (2)", peers)
	}
	out := p.stop(t)
	up, down := parseSummary(t, out)
	size := len("client 0 packet 00")
	want := counts{in: 2 * n, out: 2 * n}
	for _, c := range []*counts{&up, &down} {
		// The messages are 17 or 18 bytes long; check the bytes add up separately.
		if c.inBytes != c.outBytes || c.inBytes > 2*n*size || c.inBytes < 2*n*(size-1) {
			t.Errorf("bytes in %d, out %d: want equal and about %d\n%s", c.inBytes, c.outBytes, 2*n*size, out)
		}
		c.inBytes, c.outBytes = 0, 0
	}
	if up != want || down != want {
		t.Errorf("summary up %+v, down %+v; want %+v each way\n%s", up, down, want, out)
	}
	if !strings.Contains(out, "clients: 2") {
		t.Errorf("the summary does not count 2 clients:\n%s", out)
	}
}

func TestLossOneDropsEverything(t *testing.T) {
	echo := newEchoServer(t)
	p := startProxy(t, echo.conn.LocalAddr().String(), "-loss", "1")
	c := dial(t, p.addr)
	const n = 100
	for i := range n {
		fmt.Fprintf(c, "%d", i)
	}
	// Wait until the proxy has read them all, as its summary counts; once it has stopped,
	// nothing more can reach the server.
	deadline := time.Now().Add(patience)
	for {
		up, _, _ := p.counts()
		if up == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := p.stop(t)
	up, down := parseSummary(t, out)
	if (up != counts{in: n, inBytes: 190, dropped: n}) || (down != counts{}) {
		t.Errorf("summary up %+v, down %+v; want all %d dropped on the way up\n%s", up, down, n, out)
	}
	if got := echo.received.Load(); got != 0 {
		t.Errorf("the server received %d packets through a link that loses everything", got)
	}
}

func TestDelayedPacketArrivesAfterItsLatency(t *testing.T) {
	echo := newEchoServer(t)
	const latency = 150 * time.Millisecond
	p := startProxy(t, echo.conn.LocalAddr().String(), "-latency", latency.String())
	c := dial(t, p.addr)
	sent := time.Now()
	fmt.Fprint(c, "hello")
	got := receive(t, c, 1)
	// Up and down each wait the latency: the reply cannot come sooner (and a loaded machine
	// may make it later, which the test does not bound).
	if rtt := time.Since(sent); rtt < 2*latency {
		t.Errorf("the reply came %v after the request, before the two latencies (%v)", rtt, 2*latency)
	}
	if got[0] != "hello" {
		t.Errorf("got %q", got[0])
	}
}

func TestDuplicatesEachWay(t *testing.T) {
	echo := newEchoServer(t)
	p := startProxy(t, echo.conn.LocalAddr().String(), "-dup", "1")
	c := dial(t, p.addr)
	const n = 20
	for i := range n {
		fmt.Fprintf(c, "%02d", i)
	}
	// Each request reaches the server twice, and each of the two replies reaches the client twice.
	got := receive(t, c, 4*n)
	seen := map[string]int{}
	for _, m := range got {
		seen[m]++
	}
	for i := range n {
		if k := seen[fmt.Sprintf("%02d", i)]; k != 4 {
			t.Errorf("packet %02d came back %d times, want 4", i, k)
		}
	}
	out := p.stop(t)
	up, down := parseSummary(t, out)
	if (up != counts{in: n, inBytes: 2 * n, duplicated: n, out: 2 * n, outBytes: 4 * n}) ||
		(down != counts{in: 2 * n, inBytes: 4 * n, duplicated: 2 * n, out: 4 * n, outBytes: 8 * n}) {
		t.Errorf("summary up %+v, down %+v\n%s", up, down, out)
	}
}

// A server that is not listening: what the proxy sends it is refused (on this send or the next
// read), and the summary still adds up.
func TestServerNotListening(t *testing.T) {
	gone, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := gone.LocalAddr().String()
	gone.Close()
	p := startProxy(t, addr)
	c := dial(t, p.addr)
	const n = 20
	for i := range n {
		fmt.Fprintf(c, "%d", i)
	}
	deadline := time.Now().Add(patience)
	for {
		up, _, _ := p.counts()
		if up == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	up, down := parseSummary(t, p.stop(t))
	if up.in != n || down.in != 0 {
		t.Errorf("summary up %+v, down %+v; want %d in on the way up", up, down, n)
	}
}

// TestReplyReadAsTheRunEnds: a reply that a server reader has read when the run ends, and
// hands on only after the proxy has closed and counted what was in flight, is not taken in:
// the summary still adds up. The hooks force the order that timing makes rare.
func TestReplyReadAsTheRunEnds(t *testing.T) {
	echo := newEchoServer(t)
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	p := startProxyWith(t, echo.conn.LocalAddr().String(), func(px *proxy) {
		px.hooks.replyRead = func() {
			once.Do(func() {
				close(reached)
				<-release // until the run has closed: then this reply is handed on
			})
		}
		px.hooks.closed = func() { close(release) }
	})
	c := dial(t, p.addr)
	fmt.Fprint(c, "hello")
	select {
	case <-reached:
	case <-time.After(patience):
		t.Fatal("the echo's reply never reached the proxy")
	}
	out := p.stop(t)
	up, down := parseSummary(t, out)
	if (up != counts{in: 1, inBytes: 5, out: 1, outBytes: 5}) || (down != counts{}) {
		t.Errorf("summary up %+v, down %+v; want the request through and the late reply not taken in\n%s", up, down, out)
	}
}

func TestRefusesClientsPastTheLimit(t *testing.T) {
	echo := newEchoServer(t)
	p := startProxy(t, echo.conn.LocalAddr().String(), "-max-clients", "1")
	first, second := dial(t, p.addr), dial(t, p.addr)
	fmt.Fprint(first, "one")
	receive(t, first, 1)
	fmt.Fprint(second, "two")
	deadline := time.Now().Add(patience)
	for {
		_, _, refused := p.counts()
		if refused == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := p.stop(t)
	if !strings.Contains(out, "1 packets refused from clients past -max-clients") {
		t.Errorf("the summary does not count the refused packet:\n%s", out)
	}
	if echo.received.Load() != 1 {
		t.Errorf("the server received %d packets, want the first client's only", echo.received.Load())
	}
}

// TestIdleClientLetGo: past -max-clients, a new client takes the place of one idle for long
// enough (a game restarted comes from a new port), rather than being refused for ever.
func TestIdleClientLetGo(t *testing.T) {
	echo := newEchoServer(t)
	p := startProxy(t, echo.conn.LocalAddr().String(), "-max-clients", "1")
	first, second := dial(t, p.addr), dial(t, p.addr)
	fmt.Fprint(first, "one")
	receive(t, first, 1)
	p.mu.Lock()
	p.idle = 0 // the first client has been idle long enough
	p.mu.Unlock()
	fmt.Fprint(second, "two")
	if got := receive(t, second, 1); len(got) != 1 || got[0] != "two" {
		t.Fatalf("the second client received %q, want its echo", got)
	}
	out := p.stop(t)
	if !strings.Contains(out, "1 idle clients let go for new ones") || strings.Contains(out, "refused") {
		t.Errorf("the summary does not count the client let go, or counts a refusal:\n%s", out)
	}
}

func TestDurationEndsTheRun(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), []string{"-listen", "127.0.0.1:0", "-to", "127.0.0.1:9", "-duration", "50ms", "-preset", "poor"}, &out, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "latency 100ms ± 50ms, loss 5%") {
		t.Errorf("the start line does not describe the poor preset:\n%s", out.String())
	}
	parseSummary(t, out.String())
}

func TestFlags(t *testing.T) {
	poor, _ := netsim.Preset("poor")
	poorNoLoss := poor
	poorNoLoss.Loss = 0
	for _, tc := range []struct {
		args []string
		want netsim.Conditions
	}{
		{nil, netsim.Conditions{}},
		{[]string{"-preset", "poor"}, poor},
		{[]string{"-preset", "poor", "-loss", "0"}, poorNoLoss}, // an explicit flag overrides
		{[]string{"-loss", "0.5", "-preset", "none", "-burst-loss", "0.1", "-burst-len", "4"},
			netsim.Conditions{Loss: 0.5, BurstLoss: 0.1, BurstLen: 4}},
		{[]string{"-jitter", "5ms", "-reorder", "0.2", "-reorder-delay", "30ms", "-dup", "0.01"},
			netsim.Conditions{Jitter: 5 * time.Millisecond, Reorder: 0.2, ReorderDelay: 30 * time.Millisecond, Dup: 0.01}},
		// -0 parses as a negative zero, which is 0: it prints as 0%, not -0%.
		{[]string{"-preset", "poor", "-loss", "-0", "-dup", "-0", "-reorder", "-0", "-burst-loss", "-0"}, poorNoLoss},
	} {
		o, err := parseFlags(append([]string{"-listen", ":0", "-to", ":1"}, tc.args...), nil)
		if err != nil || o.conditions != tc.want || o.conditions.String() != tc.want.String() {
			t.Errorf("%v: %v (%+v), %v; want %v", tc.args, o.conditions, o.conditions, err, tc.want)
		}
		for _, p := range []float64{o.conditions.Loss, o.conditions.Dup, o.conditions.Reorder, o.conditions.BurstLoss} {
			if math.Signbit(p) {
				t.Errorf("%v: a probability of -0 is kept negative: %+v", tc.args, o.conditions)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-to", ":1"}, "-listen and -to are both required"},
		{[]string{"-listen", ":0"}, "-listen and -to are both required"},
		{[]string{"-listen", ":0", "-to", ":1", "-preset", "lunar"}, `-preset: no preset "lunar"`},
		{[]string{"-listen", ":0", "-to", ":1", "-loss", "1.01"}, "-loss: 1.01 is not a probability"},
		{[]string{"-listen", ":0", "-to", ":1", "-dup", "NaN"}, "-dup: NaN is not a probability"},
		{[]string{"-listen", ":0", "-to", ":1", "-loss", "-0.05"}, "-loss: -0.05 is not a probability"},
		{[]string{"-listen", ":0", "-to", ":1", "-reorder", "-1e-9"}, "-reorder: -1e-09 is not a probability"},
		{[]string{"-listen", ":0", "-to", ":1", "-latency", "-1ms"}, "-latency: -1ms is not between 0 and 1m0s"},
		{[]string{"-listen", ":0", "-to", ":1", "-jitter", "2m"}, "-jitter: 2m0s is not between"},
		{[]string{"-listen", ":0", "-to", ":1", "-burst-len", "-1"}, "-burst-len: -1 is not between"},
		{[]string{"-listen", ":0", "-to", ":1", "-burst-loss", "0.5"}, "-burst-loss 0.5 needs a -burst-len"},
		{[]string{"-listen", ":0", "-to", ":1", "-duration", "-1s"}, "-duration: -1s is negative"},
		{[]string{"-listen", ":0", "-to", ":1", "-max-clients", "0"}, "-max-clients: 0 is not between"},
		{[]string{"-listen", ":0", "-to", ":1", "extra"}, "unexpected arguments"},
		{[]string{"-latency", "soon"}, `invalid value "soon" for flag -latency`},
	} {
		_, err := parseFlags(tc.args, nil)
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
	var help bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &help); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "-burst-len") {
		t.Errorf("-h: %v, printed:\n%s", err, help.String())
	}
	// -reorder-delay 0 is the default delay, which the help says.
	if !regexp.MustCompile(`-reorder-delay duration\n.*0 means 50ms`).MatchString(help.String()) {
		t.Errorf("-h does not say what -reorder-delay 0 means:\n%s", help.String())
	}
	if o, err := parseFlags([]string{"-listen", ":0", "-to", ":1", "-reorder", "0.5", "-reorder-delay", "0"}, nil); err != nil ||
		!strings.Contains(o.conditions.String(), "reorder 50% by 50ms") {
		t.Errorf("-reorder-delay 0: %v, %v; want 50ms", o.conditions, err)
	}
}

// TestExitCodes runs the real main: -h exits 0, a bad flag exits 2 with one line, SIGTERM ends
// a run with its summary and exit 0, a socket that cannot be opened exits 1.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		code  int
		lines int // lines on stderr
	}{
		{[]string{"-h"}, 0, 0},
		{[]string{"-listen", ":0", "-to", ":1", "-loss", "2"}, 2, 1},
		{[]string{"-listen", ":0", "-to", ":1", "-loss", "-0.5"}, 2, 1},
		{[]string{"-nonsense"}, 2, 1},
		{[]string{"-listen", "127.0.0.1:99999", "-to", "127.0.0.1:1"}, 2, 1},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), "NETSIM_RUN_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(stderr.String(), "\n"); code != tc.code || lines != tc.lines {
			t.Errorf("netsim %v: exit %d with %d lines on stderr, want %d with %d:\n%s", tc.args, code, lines, tc.code, tc.lines, stderr.String())
		}
	}
	// SIGTERM ends a run with its summary, and exit 0.
	cmd := exec.Command(os.Args[0], "-listen", "127.0.0.1:0", "-to", "127.0.0.1:1")
	cmd.Env = append(os.Environ(), "NETSIM_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "netsim: forwarding") {
		t.Fatalf("first line %q, %v", first, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Errorf("netsim after SIGTERM: %v", err)
	}
	parseSummary(t, string(rest))

	// A port in use exits 1.
	busy, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cmd = exec.Command(os.Args[0], "-listen", busy.LocalAddr().String(), "-to", "127.0.0.1:1")
	cmd.Env = append(os.Environ(), "NETSIM_RUN_MAIN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "address already in use") {
		t.Errorf("netsim on a port in use: %v\n%s", err, out)
	}
}
