package agones_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/agones"
	"github.com/gameloop-go/gameloop/agones/agonestest"
)

// TestSDK: every call against Agones' own SDK server: Ready, Health, a label and an
// annotation, the rooms counter (set, added to, capacity), the players list, the watch seeing
// the allocation, and Shutdown; an unknown counter's error is the SDK server's.
func TestSDK(t *testing.T) {
	var apiErr *agones.Error
	c := agonestest.Start(t, "").Client
	ctx := context.Background()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	states := make(chan string, 16)
	go c.WatchGameServer(watchCtx, func(gs agones.GameServer) { states <- gs.Status.State })
	for _, f := range []func(context.Context) error{c.Ready, c.Health} {
		if err := f(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetLabel(ctx, "region", "eu"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetAnnotation(ctx, "relay", "127.0.0.1:7400"); err != nil {
		t.Fatal(err)
	}
	if ct, err := c.SetCount(ctx, "rooms", 3); err != nil || ct.Count != 3 || ct.Capacity != 100 {
		t.Fatalf("SetCount: %+v, %v", ct, err)
	}
	if ct, err := c.AddCount(ctx, "rooms", -1); err != nil || ct.Count != 2 {
		t.Fatalf("AddCount: %+v, %v", ct, err)
	}
	if ct, err := c.SetCapacity(ctx, "rooms", 20); err != nil || ct.Capacity != 20 {
		t.Fatalf("SetCapacity: %+v, %v", ct, err)
	}
	if ct, err := c.Counter(ctx, "rooms"); err != nil || ct.Count != 2 || ct.Capacity != 20 {
		t.Fatalf("Counter: %+v, %v", ct, err)
	}
	if _, err := c.Counter(ctx, "nope"); !errors.As(err, &apiErr) {
		t.Errorf("an unknown counter: %v, want an *Error", err)
	}
	if l, err := c.AddListValue(ctx, "players", "p1"); err != nil || len(l.Values) != 1 || l.Capacity != 8 {
		t.Fatalf("AddListValue: %+v, %v", l, err)
	}
	if l, err := c.RemoveListValue(ctx, "players", "p1"); err != nil || len(l.Values) != 0 {
		t.Fatalf("RemoveListValue: %+v, %v", l, err)
	}
	if err := c.Allocate(ctx); err != nil {
		t.Fatal(err)
	}
	for seen := ""; seen != "Allocated"; {
		select {
		case seen = <-states:
		case <-time.After(time.Minute):
			t.Fatal("the watch saw no allocation in a minute")
		}
	}
	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.ObjectMeta.Labels["agones.dev/sdk-region"] != "eu" || gs.ObjectMeta.Annotations["agones.dev/sdk-relay"] != "127.0.0.1:7400" {
		t.Errorf("labels %v, annotations %v", gs.ObjectMeta.Labels, gs.ObjectMeta.Annotations)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if gs, err := c.GameServer(ctx); err != nil || gs.Status.State != "Shutdown" {
		t.Errorf("after Shutdown: %q, %v", gs.Status.State, err)
	}
}

// TestFromEnv: no AGONES_SDK_HTTP_PORT, no client; a port, a client; anything else, an error.
func TestFromEnv(t *testing.T) {
	t.Setenv(agones.EnvPort, "")
	if c, ok, err := agones.FromEnv(); c != nil || ok || err != nil {
		t.Errorf("unset: %v, %v, %v", c, ok, err)
	}
	t.Setenv(agones.EnvPort, "9358")
	if c, ok, err := agones.FromEnv(); c == nil || !ok || err != nil {
		t.Errorf("9358: %v, %v, %v", c, ok, err)
	}
	for _, v := range []string{"x", "0", "70000"} {
		t.Setenv(agones.EnvPort, v)
		if _, _, err := agones.FromEnv(); err == nil {
			t.Errorf("%q: no error", v)
		}
	}
	if _, err := agones.New("localhost:9358", nil); err == nil {
		t.Error("New without a scheme: no error")
	}
	// Locate: the flag's URL first, then the environment, else none.
	t.Setenv(agones.EnvPort, "")
	if c, err := agones.Locate(""); c != nil || err != nil {
		t.Errorf("Locate with neither: %v, %v", c, err)
	}
	if c, err := agones.Locate("http://127.0.0.1:9357"); c == nil || err != nil {
		t.Errorf("Locate of a URL: %v, %v", c, err)
	}
	if _, err := agones.Locate("127.0.0.1:9357"); err == nil || !strings.Contains(err.Error(), "-agones") {
		t.Errorf("Locate of a bad URL: %v", err)
	}
	t.Setenv(agones.EnvPort, "x")
	if _, err := agones.Locate(""); err == nil {
		t.Error("Locate with a bad AGONES_SDK_HTTP_PORT: no error")
	}
}

// logLines is a Link's log, safe for its goroutines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, a...))
}

// count returns how many lines hold s.
func (l *logLines) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// TestLinkCounter: a Link keeps the rooms counter to its count, at most the counter's
// capacity (a count over it is logged once and the counter set to the capacity, not refused
// four times a second); a counter the game server does not have is a failure logged once,
// retried less and less often, not a log line every 250 ms; Shutdown sets the last count and
// ends at Shutdown.
func TestLinkCounter(t *testing.T) {
	srv := agonestest.Start(t, "")
	c := srv.Client
	ctx := context.Background()
	var n atomic.Int64
	n.Store(7)
	var log logLines
	l := agones.Start(c, "rooms", n.Load, log.logf)
	waitCount := func(want int64) {
		t.Helper()
		for range 200 {
			if ct, err := c.Counter(ctx, "rooms"); err == nil && ct.Count == want {
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
		ct, err := c.Counter(ctx, "rooms")
		t.Fatalf("the counter: %+v, %v; want count %d", ct, err, want)
	}
	waitCount(7)
	n.Store(150) // over the capacity of 100, once the Link has read it
	waitCount(100)
	if got := log.count("over its capacity"); got != 1 {
		t.Errorf("a count over the capacity logged %d times, want once", got)
	}
	n.Store(0)
	waitCount(0)
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := l.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	if gs, err := c.GameServer(ctx); err != nil || gs.Status.State != "Shutdown" {
		t.Fatalf("after Shutdown: %q, %v", gs.Status.State, err)
	}

	var missing logLines
	m := agones.Start(c, "no-such-counter", n.Load, missing.logf)
	time.Sleep(1500 * time.Millisecond) // 6 looks at the count; tries at 0, 0.25, 0.75 s...
	m.Stop()
	if got := missing.count(`counter "no-such-counter"`); got != 1 {
		t.Errorf("a missing counter logged %d times in 1.5 s, want once: %q", got, missing.lines)
	}
}

// TestWatchStreamError: a watch stream that ends with grpc-gateway's error line (as the SDK
// server's does when its stream fails) returns that error, and does not call f with an empty
// record. (The SDK server cannot be made to fail a stream on demand: these are the bytes it
// sends, served as it serves them.)
func TestWatchStreamError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"result":{"object_meta":{"name":"test"},"status":{"state":"Ready"}}}`+"\n")
		io.WriteString(w, `{"error":{"code":2,"message":"stream terminated","details":[]}}`+"\n")
	}))
	defer srv.Close()
	c, err := agones.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	err = c.WatchGameServer(context.Background(), func(gs agones.GameServer) { states = append(states, gs.Status.State) })
	var apiErr *agones.Error
	if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "stream terminated") {
		t.Fatalf("watch ended with %v, want the stream's error", err)
	}
	if len(states) != 1 || states[0] != "Ready" {
		t.Fatalf("f saw %q, want only Ready", states)
	}
}

// TestManifestsMatchTheirCounter: each game server of deploy/agones takes no more matches
// (-max-matches) than its rooms counter holds: past it, the counter would be refused and the
// allocator would see a full server as having room.
func TestManifestsMatchTheirCounter(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "deploy", "agones", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	capacityRE := regexp.MustCompile(`(?m)^\s+rooms:\s*\n\s+count: \d+\s*\n\s+capacity: (\d+)`)
	argsRE := regexp.MustCompile(`(?m)^\s+args: \[(.*)\]`)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, a := capacityRE.FindSubmatch(b), argsRE.FindSubmatch(b)
		if c == nil || a == nil {
			continue // not a game server's
		}
		checked++
		args := strings.Split(strings.ReplaceAll(string(a[1]), `"`, ""), ", ")
		max := ""
		for i, arg := range args {
			if arg == "-max-matches" && i+1 < len(args) {
				max = args[i+1]
			}
		}
		limit, err1 := strconv.Atoi(max)
		capacity, err2 := strconv.Atoi(string(c[1]))
		if err1 != nil || err2 != nil || limit > capacity {
			t.Errorf("%s: -max-matches %q, the rooms counter's capacity %s", f, max, c[1])
		}
	}
	if checked < 3 {
		t.Errorf("%d game server manifests checked, want the relay's GameServer and Fleet and matchserver's", checked)
	}
}
