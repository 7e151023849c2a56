package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// guard bounds every wait: it fails a test that hangs, and never decides a pass.
const guard = 2 * time.Minute

var roomsFlag = flag.Int("rooms", 100, "rooms TestRooms opens at once (docs/web-netplay.md measures 1,000)")

// mainEnv makes the test binary run the command's main instead of the tests.
const mainEnv = "LOBBY_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// start runs the lobby in this process on free ports of 127.0.0.1 with flags, until the test
// ends; stop is what SIGTERM does, and wait returns run's error.
func start(t *testing.T, flags ...string) (addr, metricsAddr string, stop func(), wait func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-listen", "127.0.0.1:0"}, flags...), io.Discard,
			func(a, m string) { ready <- [2]string{a, m} })
	}()
	select {
	case a := <-ready:
		addr, metricsAddr = a[0], a[1]
	case err := <-done:
		cancel()
		t.Fatalf("the lobby did not start: %v", err)
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
	return addr, metricsAddr, cancel, wait
}

// metric reads one metric (with its labels, if any, as in the exposition) from /metrics.
func metric(t *testing.T, metricsAddr, name string) float64 {
	t.Helper()
	v, err := scrape(metricsAddr, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func scrape(metricsAddr, name string) (float64, error) {
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(rest, 64)
		}
	}
	return 0, fmt.Errorf("no metric %s", name)
}

// TestServe: two rtc peers meet through the command and exchange a datagram; the metrics say
// so; -static serves its directory at /; cancelling (SIGTERM) ends run with nil.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>duel</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, metricsAddr, stop, wait := start(t, "-static", dir)
	if metricsAddr != addr {
		t.Errorf("metrics on %s, want the same listener %s", metricsAddr, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	conns := make([]*rtc.Conn, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { conns[i], errs[i] = rtc.Dial(ctx, "ws://"+addr+"/ws", "cmd", 2, nil) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	defer conns[0].Close()
	defer conns[1].Close()
	a, b := conns[0], conns[1]
	buf := make([]byte, 16)
	for {
		if _, err := a.WriteTo([]byte("hi"), b.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, from, err := b.ReadFrom(buf); err == nil {
			if string(buf[:n]) != "hi" || from != a.LocalAddr() {
				t.Fatalf("read %q from %v", buf[:n], from)
			}
			break
		}
	}
	for metric(t, metricsAddr, "lobby_rooms") != 0 {
		time.Sleep(time.Millisecond)
	}
	for name, want := range map[string]float64{"lobby_joins_total": 2, "lobby_rooms_filled_total": 1,
		"lobby_rooms_connected_total": 1, `lobby_refused_total{reason="protocol"}`: 0, "lobby_queued_bytes": 0} {
		if got := metric(t, metricsAddr, name); got != want {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
	if metric(t, metricsAddr, "lobby_signals_relayed_total") < 2 || metric(t, metricsAddr, "go_goroutines") < 1 {
		t.Error("no signal relayed, or no Go metrics")
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "<p>duel</p>" {
		t.Errorf("-static served %q", body)
	}
	stop()
	if err := wait(); err != nil {
		t.Errorf("run: %v", err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("the lobby still accepts connections")
	}
}

// TestFlags: the limits given by flags are the lobby's; metrics may have a listener of their
// own.
func TestFlags(t *testing.T) {
	addr, metricsAddr, _, _ := start(t, "-max-rooms", "1", "-metrics", "127.0.0.1:0", "-path", "/lobby")
	if metricsAddr == addr {
		t.Fatal("-metrics: the same listener")
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the main listener: %s, want 404 with -metrics", resp.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	waiting, stopWaiting := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := rtc.Dial(waiting, "ws://"+addr+"/lobby", "one", 2, nil)
		done <- err
	}()
	for metric(t, metricsAddr, "lobby_rooms") != 1 {
		time.Sleep(time.Millisecond)
	}
	_, err = rtc.Dial(ctx, "ws://"+addr+"/lobby", "two", 2, nil)
	var le *rtc.LobbyError
	if !errors.As(err, &le) || le.Message != "the lobby is full: 1 rooms are open" {
		t.Errorf("a second room with -max-rooms 1: %v", err)
	}
	stopWaiting()
	<-done
	if got := metric(t, metricsAddr, `lobby_refused_total{reason="rooms"}`); got != 1 {
		t.Errorf("refused for rooms: %v", got)
	}
}

// command returns the command's main, run by the test binary, with args.
func command(args ...string) *exec.Cmd {
	return commandContext(context.Background(), args...)
}

// commandContext is command, killed when ctx ends.
func commandContext(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	return cmd
}

// TestExitCodes runs the real main: -h exits 0, a bad flag 2 with one line, a port in use 1.
func TestExitCodes(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, "usage: lobby"},
		{[]string{"-max-room-size", "9"}, 2, "MaxRoomSize 9 is not between 2 and 8"},
		{[]string{"-static", "/nonexistent"}, 2, `-static: "/nonexistent" is not a directory`},
		{[]string{"-path", "ws"}, 2, `-path: "ws"`},
		{[]string{"-path", "/", "-static", dir}, 2, `-path: "/" is where -static serves its files`},
		{[]string{"-path", "/{x"}, 2, `-path: "/{x" is not a plain path`},
		{[]string{"-path", "/ws/{$}x"}, 2, `-path: "/ws/{$}x" is not a plain path`},
		{[]string{"-path", "/a b"}, 2, `-path: "/a b" is not a plain path`},
		{[]string{"-path", "/%zz"}, 2, `-path: "/%zz" is not a plain path`},
		{[]string{"-path", "/a/../ws"}, 2, `-path: "/a/../ws" is not a plain path`},
		{[]string{"-write-timeout", "0s"}, 2, "-write-timeout 0s is not positive"},
		{[]string{"-max-queued", "1000"}, 2, "MaxQueued 1000 is less than MaxMessage+1024 bytes"},
		{[]string{"-max-queued", "1000000", "-max-queued-total", "500000"}, 2, "MaxQueuedTotal 500000 is less than MaxQueued 1000000"},
		{[]string{"extra"}, 2, "unexpected arguments"},
		{[]string{"-nonsense"}, 2, "flag provided but not defined"},
		{[]string{"-listen", busy.Addr().String()}, 1, "address already in use"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), guard) // a lobby that starts would serve on
		out, err := commandContext(ctx, tc.args...).CombinedOutput()
		cancel()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "goroutine") {
			t.Errorf("lobby %v: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, out)
		}
	}
}

// startChild runs the command's main in a process of its own and returns its address, its
// stderr so far (growing), and the process.
func startChild(t *testing.T, args ...string) (string, *syncBuffer, *exec.Cmd) {
	t.Helper()
	cmd := command(append([]string{"-listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	r := bufio.NewReader(stderr)
	first, err := r.ReadString('\n')
	var addr string
	if _, err2 := fmt.Sscanf(first, "lobby: peers at ws://%s", &addr); err != nil || err2 != nil {
		t.Fatalf("first line %q: %v %v", first, err, err2)
	}
	buf := &syncBuffer{done: make(chan struct{})}
	buf.WriteString(first)
	go func() {
		io.Copy(buf, r)
		close(buf.done)
	}()
	return strings.TrimSuffix(strings.TrimSuffix(addr, ","), "/ws"), buf, cmd
}

// syncBuffer is a strings.Builder safe for concurrent use.
type syncBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	done chan struct{} // closed when the process's stderr has closed
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) WriteString(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSIGTERM: the process, sent SIGTERM with peers waiting, tells them it is shutting down,
// closes their sockets, and exits 0, saying so.
func TestSIGTERM(t *testing.T) {
	addr, stderr, cmd := startChild(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","room":"r","size":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"joined"`) {
		t.Fatalf("%s, %v", b, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, b, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(b), `"error":"the lobby is shutting down"`) {
		t.Errorf("after SIGTERM the peer read %s, %v", b, err)
	}
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("then %v, want a close going away", err)
	}
	<-stderr.done // read it all before Wait closes it
	if err := cmd.Wait(); err != nil {
		t.Errorf("the lobby after SIGTERM: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "lobby: shut down: 0 rooms connected, 1 joins") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestRooms measures the lobby process under -rooms rooms of two peers at once (100 in the
// suite; docs/web-netplay.md quotes 1,000): every peer joins, and once all the rooms are full
// (all open at once) each relays a description of 2 KB and a candidate each way and says
// ready, and the lobby forgets every room. It prints the lobby's memory and goroutines when
// all are open and after, and how long each phase took.
func TestRooms(t *testing.T) {
	n := *roomsFlag
	addr, _, cmd := startChild(t)
	defer cmd.Process.Kill()
	url := "ws://" + addr + "/ws"
	rssBefore, heapBefore, gBefore := procFigures(t, addr)

	type peer struct {
		ws    *websocket.Conn
		index int
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	peers := make([]peer, 2*n)
	errs := make(chan error, 2*n)
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := range peers {
		wg.Go(func() {
			ws, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				errs <- err
				return
			}
			peers[i].ws = ws
			if err := ws.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"type":"join","room":"room%d","size":2}`, i/2)); err != nil {
				errs <- err
				return
			}
			for {
				_, b, err := ws.Read(ctx)
				if err != nil {
					errs <- err
					return
				}
				var m struct {
					Type  string
					Index int
				}
				if err := json.Unmarshal(b, &m); err != nil {
					errs <- err
					return
				}
				if m.Type == "start" {
					peers[i].index = m.Index
					return
				}
			}
		})
	}
	wg.Wait()
	joined := time.Since(t0)
	for _, p := range peers {
		if p.ws != nil {
			defer p.ws.CloseNow()
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	rssOpen, heapOpen, gOpen := procFigures(t, addr)
	if rooms, err := scrape(addr, "lobby_rooms"); err != nil || rooms != float64(n) {
		t.Fatalf("lobby_rooms %v, %v; want %d", rooms, err, n)
	}

	sdp := strings.Repeat("a", 2048)
	t1 := time.Now()
	for _, p := range peers {
		wg.Go(func() {
			to := 1 - p.index
			for _, m := range []string{
				fmt.Sprintf(`{"type":"signal","to":%d,"data":{"sdp":{"type":"offer","sdp":%q}}}`, to, sdp),
				fmt.Sprintf(`{"type":"signal","to":%d,"data":{"candidate":{"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host"}}}`, to),
			} {
				if err := p.ws.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
					errs <- err
					return
				}
			}
			for got := 0; got < 2; {
				_, b, err := p.ws.Read(ctx)
				if err != nil {
					errs <- err
					return
				}
				if strings.Contains(string(b), `"signal"`) {
					got++
				}
			}
			if err := p.ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ready"}`)); err != nil {
				errs <- err
				return
			}
			for {
				if _, _, err := p.ws.Read(ctx); err != nil {
					if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
						errs <- err
					}
					return
				}
			}
		})
	}
	wg.Wait()
	connected := time.Since(t1)
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	for {
		rooms, err := scrape(addr, "lobby_rooms")
		if err != nil {
			t.Fatal(err)
		}
		if rooms == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if c, err := scrape(addr, "lobby_rooms_connected_total"); err != nil || c != float64(n) {
		t.Errorf("rooms connected %v, %v; want %d", c, err, n)
	}
	rssAfter, heapAfter, gAfter := procFigures(t, addr)
	t.Logf("%d rooms (%d peers): joined in %v, signalled and connected in %v; lobby before/all open/after: RSS %.1f/%.1f/%.1f MB, heap in use %.1f/%.1f/%.1f MB (%.1f KB a room open), goroutines %d/%d/%d",
		n, 2*n, joined.Round(time.Millisecond), connected.Round(time.Millisecond),
		rssBefore/1e6, rssOpen/1e6, rssAfter/1e6, heapBefore/1e6, heapOpen/1e6, heapAfter/1e6, (heapOpen-heapBefore)/1e3/float64(n),
		int(gBefore), int(gOpen), int(gAfter))
	if gOpen < 2*float64(n) || gAfter > gBefore+10 {
		t.Errorf("goroutines %v before, %v with %d peers, %v after: the peers' are not all gone", gBefore, gOpen, 2*n, gAfter)
	}
}

// procFigures returns the lobby process's resident memory, heap in use and goroutines, from
// its metrics.
func procFigures(t *testing.T, addr string) (rss, heap, goroutines float64) {
	t.Helper()
	var out [3]float64
	for i, name := range []string{"process_resident_memory_bytes", "go_memstats_heap_inuse_bytes", "go_goroutines"} {
		v, err := scrape(addr, name)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out[0], out[1], out[2]
}

// TestSlowClient: with -static, a client that asks for a large file and does not read is cut
// off once a write of the response has waited -write-timeout (its connection closed by the
// server, the file not sent whole); the peers' WebSockets are not bound by the timeout.
func TestSlowClient(t *testing.T) {
	dir := t.TempDir()
	const size = 64 << 20 // far more than a socket's buffers hold
	f, err := os.Create(filepath.Join(dir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	o, err := parseFlags([]string{"-static", dir, "-write-timeout", "100ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lobby.New(o.cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux, err := o.routes(l, http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := o.server(mux)
	closed := make(chan string, 100)
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- c.RemoteAddr().String()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		l.Close(ctx)
		srv.Close()
	})
	addr := ln.Addr().String()

	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /big HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	wait := time.NewTimer(guard)
	defer wait.Stop()
	for gone := false; !gone; {
		select {
		case a := <-closed:
			gone = a == c.LocalAddr().String()
		case <-wait.C:
			t.Fatal("the server did not close the connection of a client that does not read")
		}
	}
	c.SetReadDeadline(time.Now().Add(guard))
	if n, err := io.Copy(io.Discard, c); err != nil || n >= size {
		t.Errorf("the client that did not read then read %d bytes (%v): want less than the %d of the file, then the end", n, err, size)
	}

	// The WebSocket, opened before, has lived past the write timeout of every write above.
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","room":"r","size":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"joined"`) {
		t.Errorf("the lobby after the write timeout: %s, %v", b, err)
	}
}
