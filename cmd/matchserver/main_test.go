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
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/replay"
)

// startServer runs the server on free ports of 127.0.0.1, recording into a temporary
// directory. Cancelling the returned context is what SIGTERM does; wait returns run's error.
func startServer(t *testing.T) (addr, metricsAddr, dir string, stop context.CancelFunc, wait func() error) {
	t.Helper()
	dir = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		// Catch up rather than drop: under the race detector, on a busy machine, the server
		// may fall seconds behind, and must not lose time for it.
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-record", dir,
			"-catchup-ticks", "100000", "-catchup-time", "1h"}, io.Discard, io.Discard,
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
	for _, tt := range []struct{ send, want string }{
		{"HELLO", "ERR unknown command"},
		{"END", "ERR no match is running"},
		{"INPUT left", "ERR INPUT needs a running match"},
		{"START x", "ERR START takes a seed"},
		{"START 5", "STARTED "},
		{"START 6", "ERR a match is running"},
		{"INPUT sideways", "ERR INPUT needs a running match and a key"},
		{"END", "ENDED "},
	} {
		fmt.Fprintf(conn, "%s\n", tt.send)
		line, err := in.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, tt.want) {
			t.Errorf("%s: got %q (%v), want %s...", tt.send, line, err, tt.want)
		}
	}
}
