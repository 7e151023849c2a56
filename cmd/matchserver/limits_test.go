package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// syncBuffer is a bytes.Buffer that a server's log and a test may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor fails the test if the function does not return within a minute: a bound to end a
// hung test, not a measure of how long anything takes.
func waitFor(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still waiting after a minute", what)
	}
}

// TestIdleClient: a client that starts a match and then sends nothing loses it after
// -idle-timeout: it is told why, its match ends and is answered for, its connection is closed,
// and the server logs it. It used to hold its match slot for ever.
func TestIdleClient(t *testing.T) {
	var logw syncBuffer
	addr, metricsAddr, _, _, _ := startServerLogged(t, &logw, "-idle-timeout", "200ms", "-max-matches", "1")
	conn, in := dial(t, addr)
	fmt.Fprintf(conn, "START 1\n")
	if line := readLine(t, in); !strings.HasPrefix(line, "STARTED ") {
		t.Fatalf("START: %q", line)
	}
	for _, want := range []string{"ERR nothing came for 200ms: closing", "ENDED "} {
		if line := readLine(t, in); !strings.HasPrefix(line, want) {
			t.Fatalf("an idle client was told %q, want %s...", line, want)
		}
	}
	if line, err := in.ReadString('\n'); err != io.EOF {
		t.Errorf("after closing an idle client: %q, %v; want EOF", line, err)
	}
	if !strings.Contains(logw.String(), "sent nothing for 200ms") {
		t.Errorf("the log does not say an idle client was closed:\n%s", logw.String())
	}
	// Its slot is free: with -max-matches 1, another START is taken.
	conn2, in2 := dial(t, addr)
	fmt.Fprintf(conn2, "START 2\nEND\n")
	if line := readLine(t, in2); !strings.HasPrefix(line, "STARTED ") {
		t.Errorf("START after the idle client was closed: %q", line)
	}
	if v := metricValue(t, metricsAddr, "matchserver_matches_ended_total"); v < 1 {
		t.Errorf("matchserver_matches_ended_total = %v: the idle client's match did not end", v)
	}
}

// TestMaxConns: past -max-conns a connection is answered ERR and closed, and counted; the
// connections open go on being served.
func TestMaxConns(t *testing.T) {
	addr, metricsAddr, _, _, _ := startServer(t, "-max-conns", "2")
	var conns []net.Conn
	var ins []*bufio.Reader
	for i := range 2 {
		conn, in := dial(t, addr)
		fmt.Fprintf(conn, "START %d\n", i)
		if line := readLine(t, in); !strings.HasPrefix(line, "STARTED ") {
			t.Fatalf("START %d: %q", i, line)
		}
		conns, ins = append(conns, conn), append(ins, in)
	}
	_, in := dial(t, addr)
	if line := readLine(t, in); line != "ERR the server is full: 2 connections are open" {
		t.Errorf("a third connection: %q", line)
	}
	if _, err := in.ReadString('\n'); err == nil {
		t.Error("a connection past -max-conns was not closed")
	}
	if v := metricValue(t, metricsAddr, `matchserver_refused_total{reason="conns"}`); v != 1 {
		t.Errorf(`matchserver_refused_total{reason="conns"} = %v, want 1`, v)
	}
	for i, conn := range conns {
		fmt.Fprintf(conn, "END\n")
		if line := readLine(t, ins[i]); !strings.HasPrefix(line, "ENDED ") {
			t.Errorf("END on connection %d after the refusal: %q", i, line)
		}
	}
}

// childEnv names the variable that makes the test binary run the server, with RLIMIT_NOFILE
// lowered to its value, instead of the tests.
const childEnv = "MATCHSERVER_TEST_NOFILE"

func TestMain(m *testing.M) {
	if n := os.Getenv(childEnv); n != "" {
		os.Exit(serverChild(n))
	}
	os.Exit(m.Run())
}

// serverChild runs the server with few file descriptors, the flags after "--" on its command
// line, printing its address on stdout, until stdin closes.
func serverChild(nofile string) int {
	var n uint64
	if _, err := fmt.Sscan(nofile, &n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 1
	}
	args := os.Args[1:]
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return exitStatus(run(ctx, args, os.Stdout, os.Stderr, func(addr, _ string) { fmt.Println(addr) }), os.Stderr)
}

// TestOutOfFileDescriptors: a server that runs out of file descriptors (accept fails with
// EMFILE) logs it, backs off and goes on serving once connections close. It used to exit.
// The server runs in a process of its own with RLIMIT_NOFILE at 64, and is sent 100 idle
// connections.
func TestOutOfFileDescriptors(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("RLIMIT_NOFILE and EMFILE as on Linux")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "-addr", "127.0.0.1:0", "-metrics", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), childEnv+"=64")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
		}
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the server did not start: %v\n%s", err, stderr.String())
	}
	addr = strings.TrimSpace(addr)

	// 100 connections, more than the server has descriptors for: the kernel takes them all
	// (the listen backlog), the server accepts until it runs out.
	var idle []net.Conn
	for range 100 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, conn)
	}
	waitFor(t, "the server to run out of file descriptors", func() {
		for !strings.Contains(stderr.String(), "too many open files") {
			time.Sleep(10 * time.Millisecond)
		}
	})
	for _, c := range idle {
		c.Close()
	}
	select {
	case err := <-exited:
		t.Fatalf("the server exited when it ran out of file descriptors: %v\n%s", err, stderr.String())
	default:
	}
	// Once they are closed, a client is served.
	conn, in := dial(t, addr)
	fmt.Fprintf(conn, "START 1\nEND\n")
	for _, want := range []string{"STARTED ", "ENDED "} {
		line, err := in.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, want) {
			t.Fatalf("after running out of file descriptors: %q, %v; want %s...\n%s", line, err, want, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "retrying in") {
		t.Errorf("the server's log does not say it backed off:\n%s", stderr.String())
	}
}

// TestShutdownWithClientThatDoesNotRead: a client that floods the server and never reads
// holds up its shutdown for a second at most, not -write-timeout (an hour here). It used to
// hold it up until the write timeout.
func TestShutdownWithClientThatDoesNotRead(t *testing.T) {
	addr, _, dir, stop, wait := startServer(t, "-write-timeout", "1h")
	conn, in := dial(t, addr)
	fmt.Fprintf(conn, "START 1\n")
	line := readLine(t, in)
	var id uint64
	if _, err := fmt.Sscanf(line, "STARTED %d", &id); err != nil {
		t.Fatalf("START: %q", line)
	}
	// Flood until the server stops reading: a write that cannot finish in a second.
	chunk := []byte(strings.Repeat("X\n", 1<<15))
	for {
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write(chunk); err != nil {
			break
		}
	}
	stop()
	waitFor(t, "shutting down with a client that does not read", func() {
		if err := wait(); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("match-%d.rec", id)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rec, err := replay.Decode(f); err != nil || !rec.Complete {
		t.Errorf("the recording: %v", err)
	}
}

// TestStartThatCannotRecord: a START whose recording cannot be written (a full disk: here the
// file is a link to /dev/full) is refused without saying where or how, is logged, and leaves
// no file behind; the next START is recorded. It used to leave an empty recording and tell
// the client the server's path and the system's error.
func TestStartThatCannotRecord(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var logw syncBuffer
	addr, _, dir, _, _ := startServerLogged(t, &logw)
	path := filepath.Join(dir, "match-1.rec")
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
	conn, in := dial(t, addr)
	fmt.Fprintf(conn, "START 1\n")
	if line := readLine(t, in); line != "ERR the match could not be recorded" {
		t.Errorf("START on a full disk: %q", line)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the failed recording is still there: %v", err)
	}
	if !strings.Contains(logw.String(), "no space left on device") {
		t.Errorf("the log does not say why:\n%s", logw.String())
	}
	fmt.Fprintf(conn, "START 2\nEND\n")
	line := readLine(t, in)
	var e ended
	if _, err := fmt.Sscanf(line, "STARTED %d", &e.id); err != nil {
		t.Fatalf("START after a failed one: %q", line)
	}
	if line := readLine(t, in); !strings.HasPrefix(line, "ENDED ") {
		t.Fatalf("END: %q", line)
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("match-%d.rec", e.id))); err != nil {
		t.Error(err)
	}
}

// TestReplayStreams: -replay reads a recording as it replays it, so what it allocates does not
// grow with the recording (decoding all of one of 300,000 inputs takes over 19 MB). It used
// to decode the whole file first.
func TestReplayStreams(t *testing.T) {
	const ticks, perTick = 6000, 50
	var buf bytes.Buffer
	a := newArena(7)
	rec, err := replay.NewRecorder(&buf, 20, &replay.RecordOptions{Name: "matchserver", Meta: a.meta()})
	if err != nil {
		t.Fatal(err)
	}
	for tick := uint64(1); tick <= ticks; tick++ {
		for i := range perTick {
			in := &gameloop.Input{Kind: gameloop.KeyPress, Key: []gameloop.Key{gameloop.KeyLeft, gameloop.KeyUp}[i%2], Tick: tick}
			if err := errors.Join(rec.Input(in), a.Input(in)); err != nil {
				t.Fatal(err)
			}
		}
		u := &gameloop.Update{Tick: tick, Seconds: 1.0 / 20}
		if err := errors.Join(a.Update(u), rec.Tick(u, a.Checksum)); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := replayRecording(t.Context(), bytes.NewReader(buf.Bytes()))
	runtime.ReadMemStats(&after)
	if err != nil || !res.Matched() || res.Inputs != ticks*perTick {
		t.Fatalf("replay: %v, %v", res, err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("replaying %d bytes, %d inputs, allocated %d bytes", buf.Len(), res.Inputs, allocated)
	if limit := uint64(4 << 20); allocated > limit {
		t.Errorf("replaying %d inputs allocated %d bytes, over %d: the recording is not streamed", res.Inputs, allocated, limit)
	}
}

// TestExitStatus: a bad flag exits 2 with its error printed once, -h exits 0 with the usage,
// a setting out of range exits 2 naming its flag.
func TestExitStatus(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-hz", "0"}, 2, "-hz: 0 is not between"},
		{[]string{"-h"}, 0, "usage: matchserver"},
	} {
		var stderr bytes.Buffer
		status := exitStatus(run(t.Context(), tt.args, io.Discard, &stderr, nil), &stderr)
		if status != tt.status || strings.Count(stderr.String(), tt.want) != 1 {
			t.Errorf("matchserver %q: status %d, printed:\n%s\nwant status %d and %q once", tt.args, status, stderr.String(), tt.status, tt.want)
		}
	}
}

// TestIdleMetricsClient: a connection to /metrics kept alive and idle is closed after
// -idle-timeout, as a protocol connection is. It used to stay open for ever.
func TestIdleMetricsClient(t *testing.T) {
	_, metricsAddr, _, _, _ := startServer(t, "-idle-timeout", "200ms")
	conn, in := dial(t, metricsAddr)
	fmt.Fprintf(conn, "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n", metricsAddr)
	if line := readLine(t, in); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("GET /metrics: %q", line)
	}
	// Read the response to its end, then nothing more comes: the server closes the connection.
	if _, err := io.Copy(io.Discard, in); err != nil {
		t.Errorf("an idle connection to /metrics ended with %v, want it closed by the server", err)
	}
}
