package agones

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// sdkServerPath is Agones' own SDK server, built from its source, beside the repository.
var sdkServerPath = filepath.Join("..", "..", "shared", "agones", "sdk-server")

const gameServer = `apiVersion: "agones.dev/v1"
kind: GameServer
metadata:
  name: test
status:
  counters:
    rooms:
      count: 0
      capacity: 10
  lists:
    players:
      capacity: 4
      values: []
`

// startSDK starts Agones' SDK server locally and returns a client of it, or skips the test
// where there is none.
func startSDK(t *testing.T) *Client {
	t.Helper()
	if _, err := os.Stat(sdkServerPath); err != nil {
		t.Skipf("no Agones SDK server at %s (%v)", sdkServerPath, err)
	}
	file := filepath.Join(t.TempDir(), "gs.yaml")
	if err := os.WriteFile(file, []byte(gameServer), 0o644); err != nil {
		t.Fatal(err)
	}
	port := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	httpPort := port()
	var out bytes.Buffer
	cmd := exec.Command(sdkServerPath, "--local", "--address", "127.0.0.1", "--http-port", fmt.Sprint(httpPort),
		"--grpc-port", fmt.Sprint(port()), "--health-port", fmt.Sprint(port()), "-f", file, "--graceful-termination=false")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c, err := New(fmt.Sprintf("http://127.0.0.1:%d", httpPort), nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := c.GameServer(context.Background()); err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatal("the SDK server did not answer in a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSDK: every call against Agones' own SDK server: Ready, Health, a label and an
// annotation, the rooms counter (set, added to, capacity), the players list, the watch seeing
// the allocation, and Shutdown; an unknown counter's error is the SDK server's.
func TestSDK(t *testing.T) {
	c := startSDK(t)
	ctx := context.Background()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	states := make(chan string, 16)
	go c.WatchGameServer(watchCtx, func(gs GameServer) { states <- gs.Status.State })
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
	if ct, err := c.SetCount(ctx, "rooms", 3); err != nil || ct.Count != 3 || ct.Capacity != 10 {
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
	var apiErr *Error
	if _, err := c.Counter(ctx, "nope"); !errors.As(err, &apiErr) {
		t.Errorf("an unknown counter: %v, want an *Error", err)
	}
	if l, err := c.AddListValue(ctx, "players", "p1"); err != nil || len(l.Values) != 1 || l.Capacity != 4 {
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

// TestFromEnv: no AGONES_SDK_HTTP_PORT, no client; a port, a client of localhost; anything
// else, an error.
func TestFromEnv(t *testing.T) {
	t.Setenv(EnvPort, "")
	if c, ok, err := FromEnv(); c != nil || ok || err != nil {
		t.Errorf("unset: %v, %v, %v", c, ok, err)
	}
	t.Setenv(EnvPort, "9358")
	if c, ok, err := FromEnv(); c == nil || !ok || err != nil || c.base != "http://localhost:9358" {
		t.Errorf("9358: %v, %v, %v", c, ok, err)
	}
	for _, v := range []string{"x", "0", "70000"} {
		t.Setenv(EnvPort, v)
		if _, _, err := FromEnv(); err == nil {
			t.Errorf("%q: no error", v)
		}
	}
	if _, err := New("localhost:9358", nil); err == nil {
		t.Error("New without a scheme: no error")
	}
}
