package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// startServer runs the server on free ports of 127.0.0.1, recording into a temporary
// directory, with flags added to the test's own. Cancelling the returned context is what
// SIGTERM does; wait returns run's error.
func startServer(t *testing.T, flags ...string) (addr, metricsAddr, dir string, stop context.CancelFunc, wait func() error) {
	t.Helper()
	return startServerLogged(t, io.Discard, flags...)
}

// startServerLogged is startServer with the server's log written to logw.
func startServerLogged(t *testing.T, logw io.Writer, flags ...string) (addr, metricsAddr, dir string, stop context.CancelFunc, wait func() error) {
	t.Helper()
	dir = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		// Catch up rather than drop: under the race detector, on a busy machine, the server
		// may fall seconds behind, and must not lose time for it.
		args := []string{"-addr", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-record", dir,
			"-catchup-ticks", "100000", "-catchup-time", "1h"}
		done <- run(ctx, append(args, flags...), io.Discard, logw,
			func(a, m string) { ready <- [2]string{a, m} })
	}()
	select {
	case a := <-ready:
		addr, metricsAddr = a[0], a[1]
	case err := <-done:
		cancel()
		t.Fatalf("the server did not start: %v", err)
	}
	var once sync.Once
	var err error
	wait = func() error {
		once.Do(func() { err = <-done })
		return err
	}
	t.Cleanup(func() {
		cancel()
		wait()
	})
	return addr, metricsAddr, dir, cancel, wait
}

// ended is what the server answered for a match.
type ended struct {
	id, ticks uint64
	checksum  uint64
}

// client plays one match: it starts it, sends inputs at random moments over about play, and
// ends it (unless play is 0: then it waits for the server to end it).
func client(addr string, seed uint64, play time.Duration) (ended, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return ended{}, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Minute)) // a hung server fails the test, not hangs it
	in := bufio.NewReader(conn)
	if _, err := fmt.Fprintf(conn, "START %d\n", seed); err != nil {
		return ended{}, err
	}
	if line, err := in.ReadString('\n'); err != nil || !strings.HasPrefix(line, "STARTED ") {
		return ended{}, fmt.Errorf("START: %q, %v", line, err)
	}
	if play > 0 {
		rng := rand.New(rand.NewPCG(seed, 0))
		for _, key := range []string{"left", "up", "right", "down", "left"} {
			time.Sleep(time.Duration(rng.Int64N(int64(play) / 5)))
			if _, err := fmt.Fprintf(conn, "INPUT %s\n", key); err != nil {
				return ended{}, err
			}
		}
		if _, err := fmt.Fprintf(conn, "END\n"); err != nil {
			return ended{}, err
		}
	}
	line, err := in.ReadString('\n')
	if err != nil {
		return ended{}, fmt.Errorf("waiting for ENDED: %w", err)
	}
	var e ended
	if _, err := fmt.Sscanf(line, "ENDED %d %d %x", &e.id, &e.ticks, &e.checksum); err != nil {
		return ended{}, fmt.Errorf("reading %q: %w", line, err)
	}
	return e, nil
}

// checkRecordings replays every match's recording into a new arena: each is complete,
// matches its checksums, and ends where the server said, in the state it said.
func checkRecordings(t *testing.T, dir string, matches []ended) {
	t.Helper()
	for _, e := range matches {
		path := filepath.Join(dir, fmt.Sprintf("match-%d.rec", e.id))
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			continue
		}
		rec, err := replay.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		a, err := arenaFromMeta(rec.Meta)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		res, err := rec.Play(context.Background(), a, nil)
		switch {
		case err != nil:
			t.Errorf("%s: %v", path, err)
		case !res.Matched() || res.Ticks != e.ticks:
			t.Errorf("%s: %v; the server ran %d ticks", path, res, e.ticks)
		case a.Checksum() != e.checksum:
			t.Errorf("%s: replayed to state %016x, the server ended in %016x", path, a.Checksum(), e.checksum)
		}
	}
}

// metricValue reads one metric from the server's /metrics.
func metricValue(t *testing.T, metricsAddr, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics:\n%s", name, body)
	return 0
}

// TestLoad drives the server with 1,000 matches of simulated clients at once, over loopback:
// every match ends with what its client asked for, no tick is dropped, and every recording
// replays to the state the server ended in.
func TestLoad(t *testing.T) {
	const matches = 1000
	addr, metricsAddr, dir, stop, wait := startServer(t)
	results := make([]ended, matches)
	var wg sync.WaitGroup
	errs := make(chan error, matches)
	for i := range matches {
		wg.Go(func() {
			e, err := client(addr, uint64(i+1), time.Second)
			if err != nil {
				errs <- fmt.Errorf("client %d: %w", i, err)
			}
			results[i] = e
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	if v := metricValue(t, metricsAddr, "matchserver_dropped_ticks_total"); v != 0 {
		t.Errorf("%v ticks dropped", v)
	}
	if v := metricValue(t, metricsAddr, "matchserver_matches_ended_total"); v != matches {
		t.Errorf("matchserver_matches_ended_total = %v, want %d", v, matches)
	}
	var ticks uint64
	for _, e := range results {
		ticks += e.ticks
	}
	if v := metricValue(t, metricsAddr, "matchserver_ticks_total"); v != float64(ticks) {
		t.Errorf("matchserver_ticks_total = %v, the matches ran %d", v, ticks)
	}
	if v := metricValue(t, metricsAddr, "matchserver_tick_lateness_seconds_count"); v != float64(ticks) {
		t.Errorf("the lateness histogram counted %v ticks, the matches ran %d", v, ticks)
	}
	stop()
	if err := wait(); err != nil {
		t.Errorf("run: %v", err)
	}
	checkRecordings(t, dir, results)
}

// TestShutdown: cancelling the server's context (what SIGTERM does) ends every match, answers
// every client, closes every recording whole, and returns.
func TestShutdown(t *testing.T) {
	const matches = 50
	addr, metricsAddr, dir, stop, wait := startServer(t)
	results := make([]ended, matches)
	var wg sync.WaitGroup
	for i := range matches {
		wg.Go(func() {
			e, err := client(addr, uint64(i+1), 0) // plays until the server ends it
			if err != nil {
				t.Errorf("client %d: %v", i, err)
			}
			results[i] = e
		})
	}
	for metricValue(t, metricsAddr, "matchserver_matches") < matches {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	wg.Wait()
	if err := wait(); err != nil {
		t.Errorf("run: %v", err)
	}
	if t.Failed() {
		return
	}
	checkRecordings(t, dir, results)
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("the server still accepts connections")
	}
}

// TestProtocolErrors: the server answers mistakes with ERR and goes on.
func TestProtocolErrors(t *testing.T) {
	addr, _, _, _, _ := startServer(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	in := bufio.NewReader(conn)
	long := strings.Repeat("A", 200)
	for _, tt := range []struct{ send, want string }{
		{"HELLO", `ERR unknown command "HELLO": send START [seed], INPUT key or END`},
		{"END", "ERR no match is running"},
		{"INPUT left", "ERR INPUT needs a running match: START one"},
		{"START x", `ERR START's seed must be a number from 0 to 18446744073709551615, not "x"`},
		{"START 99999999999999999999", `ERR START's seed must be a number from 0 to 18446744073709551615, not "9999999999999999..."`},
		// At most 16 bytes of the client's text come back, and only printable ones.
		{long, `ERR unknown command "AAAAAAAAAAAAAAAA...": send START [seed], INPUT key or END`},
		{"\x1b[2J\"\xff", `ERR unknown command "?[2J??": send START [seed], INPUT key or END`},
		{"", "ERR an empty line: send START [seed], INPUT key or END"},
		{"START 5", "STARTED "},
		{"START 6", "ERR a match is running: END it first"},
		{"INPUT sideways", `ERR unknown key "sideways": INPUT takes left, right, up or down`},
		{"INPUT", "ERR INPUT takes a key: left, right, up or down"},
		{"INPUT left right", "ERR INPUT takes one key"},
		{"input LEFT", "ERR unknown command"}, // taken: no answer, so the next line's comes
		{"END now", "ERR END takes nothing after it"},
		{"end", "ENDED "},
	} {
		fmt.Fprintf(conn, "%s\n", tt.send)
		if tt.send == "input LEFT" {
			fmt.Fprintf(conn, "PING\n")
		}
		line, err := in.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, tt.want) {
			t.Errorf("%.20q: got %q (%v), want %s...", tt.send, line, err, tt.want)
		}
	}
	// A line longer than the limit closes the connection, and says why.
	fmt.Fprintf(conn, "START 1\n%s\n", strings.Repeat("X", 2*maxLine))
	if line := readLine(t, in); !strings.HasPrefix(line, "STARTED ") {
		t.Fatalf("START: %q", line)
	}
	for _, want := range []string{fmt.Sprintf("ERR a line is longer than %d bytes: closing", maxLine), "ENDED "} {
		if line := readLine(t, in); !strings.HasPrefix(line, want) {
			t.Errorf("after a long line: got %q, want %s...", line, want)
		}
	}
	// Closed: with the rest of the line unread, the close may come as a reset.
	if line, err := in.ReadString('\n'); err == nil {
		t.Errorf("after a long line: %q; want the connection closed", line)
	}
}

// readLine reads a line from the server, failing the test if none comes.
func readLine(t *testing.T, in *bufio.Reader) string {
	t.Helper()
	line, err := in.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the server's answer: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

// dial connects to the server, with a deadline that fails a test rather than hangs it.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(2 * time.Minute))
	return conn, bufio.NewReader(conn)
}

// TestMaxMatches: past -max-matches a START is refused, and counted; once a match ends, a
// START is taken again.
func TestMaxMatches(t *testing.T) {
	addr, metricsAddr, _, _, _ := startServer(t, "-max-matches", "2")
	var conns []net.Conn
	var ins []*bufio.Reader
	for i := range 3 {
		conn, in := dial(t, addr)
		fmt.Fprintf(conn, "START %d\n", i)
		conns, ins = append(conns, conn), append(ins, in)
	}
	// The first two are taken in whichever order they arrive: two STARTED, one refusal.
	var started, refused []int
	for i, in := range ins {
		switch line := readLine(t, in); {
		case strings.HasPrefix(line, "STARTED "):
			started = append(started, i)
		case strings.HasPrefix(line, "ERR the server is full"):
			refused = append(refused, i)
		default:
			t.Fatalf("START %d: %q", i, line)
		}
	}
	if len(started) != 2 || len(refused) != 1 {
		t.Fatalf("started %v, refused %v: want two started and one refused", started, refused)
	}
	if v := metricValue(t, metricsAddr, `matchserver_refused_total{reason="full"}`); v != 1 {
		t.Errorf(`matchserver_refused_total{reason="full"} = %v, want 1`, v)
	}
	fmt.Fprintf(conns[started[0]], "END\n")
	if line := readLine(t, ins[started[0]]); !strings.HasPrefix(line, "ENDED ") {
		t.Fatalf("END: %q", line)
	}
	fmt.Fprintf(conns[refused[0]], "START 9\n")
	if line := readLine(t, ins[refused[0]]); !strings.HasPrefix(line, "STARTED ") {
		t.Errorf("START after a match ended: %q", line)
	}
}

// TestMaxInput: a client that sends input faster than the match takes it is refused past
// -max-input inputs waiting for the next tick, and taken again once they have gone to the
// game. However a burst falls across ticks, no tick of the recording has more inputs before
// it than the limit, and every input sent is either recorded or refused.
func TestMaxInput(t *testing.T) {
	const limit, sent = 3, 2000
	addr, metricsAddr, dir, _, _ := startServer(t, "-max-input", strconv.Itoa(limit))
	conn, in := dial(t, addr)
	fmt.Fprintf(conn, "START 1\n")
	if line := readLine(t, in); !strings.HasPrefix(line, "STARTED ") {
		t.Fatalf("START: %q", line)
	}
	// One input at a time, each followed by an unknown command, so that the answers tell
	// whether it was taken: up to the limit it is; then, once the game has taken some, again.
	// (Without the limit's count going down as the game takes input, it never would be:
	// past 100 ticks, the test fails.)
	refusals := 0
	taken := func() bool {
		fmt.Fprintf(conn, "INPUT up\nPING\n")
		line := readLine(t, in)
		if strings.HasPrefix(line, "ERR too much input") {
			refusals++
			line = readLine(t, in)
		} else if !strings.HasPrefix(line, "ERR unknown command") {
			t.Fatalf("INPUT: %q", line)
		} else {
			return true
		}
		if !strings.HasPrefix(line, "ERR unknown command") {
			t.Fatalf("PING: %q", line)
		}
		return false
	}
	accepted := 0
	for range limit {
		if !taken() {
			t.Fatalf("an input was refused with %d of %d waiting", accepted, limit)
		}
		accepted++
	}
	ticks := metricValue(t, metricsAddr, "matchserver_ticks_total")
	for !taken() {
		if metricValue(t, metricsAddr, "matchserver_ticks_total") > ticks+100 {
			t.Fatal("input is still refused 100 ticks after the inputs waiting went to the game")
		}
		time.Sleep(10 * time.Millisecond)
	}
	accepted++
	before := refusals
	go func() {
		// In one write, so that it arrives faster than ticks come.
		conn.Write([]byte(strings.Repeat("INPUT left\n", sent) + "END\n"))
	}()
	var e ended
	for {
		line := readLine(t, in)
		if strings.HasPrefix(line, "ERR too much input") {
			refusals++
			continue
		}
		if _, err := fmt.Sscanf(line, "ENDED %d %d %x", &e.id, &e.ticks, &e.checksum); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		break
	}
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("match-%d.rec", e.id)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := replay.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	perTick := map[uint64]int{}
	for _, in := range rec.Inputs {
		perTick[in.Tick]++
	}
	for tick, n := range perTick {
		if n > limit {
			t.Errorf("%d inputs before tick %d, more than the limit of %d", n, tick, limit)
		}
	}
	// An input accepted before END is delivered before the match's last tick, or, if END
	// came first, not at all: it is neither refused nor recorded only then.
	burst, burstRefused := len(rec.Inputs)-accepted, refusals-before
	if burstRefused+burst > sent || burstRefused < sent-limit*int(e.ticks+1) {
		t.Errorf("%d refused and %d recorded of %d sent in a burst; the match ran %d ticks", burstRefused, burst, sent, e.ticks)
	}
	if v := metricValue(t, metricsAddr, `matchserver_refused_total{reason="input"}`); v != float64(refusals) {
		t.Errorf(`matchserver_refused_total{reason="input"} = %v, the client was refused %d times`, v, refusals)
	}
}

// TestInputCountsUntilTick: an input handed to the game in a pass that runs no update (a
// match's first pass runs at its start, one step before its first tick; a late first pass
// can find inputs already pushed) still waits for the next tick, and counts against
// -max-input until that tick runs. Counted off at delivery instead, a client could get
// twice the limit before one tick, which the recording shows.
func TestInputCountsUntilTick(t *testing.T) {
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	arena := newArena(1)
	var queued atomic.Int64
	timed := &timedGame{game: arena, input: arena, clock: clock, metrics: newMetrics(pool), queued: &queued}
	m, err := pool.NewMatch(context.Background(), timed, gameloop.Config{TickRate: 60})
	if err != nil {
		t.Fatal(err)
	}
	timed.match = m
	queued.Store(3)
	for range 3 {
		if err := timed.Input(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyUp}); err != nil {
			t.Fatal(err)
		}
	}
	if got := queued.Load(); got != 3 {
		t.Fatalf("%d inputs counted after they went to the game with no tick since, want 3", got)
	}
	if err := timed.Update(&gameloop.Update{Tick: 1}); err != nil {
		t.Fatal(err)
	}
	if got := queued.Load(); got != 0 {
		t.Fatalf("%d inputs counted after the tick that takes them, want 0", got)
	}
}

// TestClientThatDoesNotRead: a client that floods the server with commands and never reads
// the answers fills the connection's buffers, and the server's writes block. The write
// timeout closes such a connection, ending its match, so that shutting down does not wait
// for it forever.
func TestClientThatDoesNotRead(t *testing.T) {
	addr, _, dir, stop, wait := startServer(t, "-write-timeout", "100ms")
	conn, in := dial(t, addr)
	fmt.Fprintf(conn, "START 1\n")
	line := readLine(t, in)
	var id uint64
	if _, err := fmt.Sscanf(line, "STARTED %d", &id); err != nil {
		t.Fatalf("START: %q", line)
	}
	// Every line is answered with an error of about 70 bytes: sent on and on, they fill the
	// buffers of the connection both ways, and the server, blocked writing its answers, stops
	// reading. It gives up on the connection after its write timeout, and a write from this
	// side then fails; the deadline here ends the flood of a server that never gives up.
	chunk := []byte(strings.Repeat("X\n", 1<<15))
	for {
		conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write(chunk); err != nil {
			break
		}
	}
	stop()
	done := make(chan error, 1)
	go func() { done <- wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server did not shut down: it waits for a client that does not read")
	}
	// The match was ended and its recording closed whole.
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("match-%d.rec", id)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := replay.Decode(f)
	if err != nil || !rec.Complete {
		t.Errorf("the recording: %v, complete %v", err, rec != nil && rec.Complete)
	}
}

// TestBadFlags: every setting out of range is an error naming its flag, before anything is
// served.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-hz", "0"}, {"-catchup-ticks", "0"}, {"-catchup-time", "0s"}, {"-max-matches", "0"},
		{"-max-input", "-1"}, {"-resolution", "-1ms"}, {"-write-timeout", "0s"}, {"-max-conns", "0"},
		{"-idle-timeout", "0s"}, {"extra"},
	} {
		_, err := parseFlags(args, io.Discard)
		if err == nil || (args[0] != "extra" && !strings.Contains(err.Error(), args[0])) {
			t.Errorf("parseFlags(%q) = %v, want an error naming %s", args, err, args[0])
		}
	}
	if _, err := parseFlags(nil, io.Discard); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
