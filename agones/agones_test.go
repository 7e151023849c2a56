package agones_test

import (
	"context"
	"errors"
	"strings"
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
