package main

import (
	"bytes"
	"context"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/agones/agonestest"
	"github.com/gameloop-go/gameloop/netplay"
)

// TestAgones: the relay as an Agones game server, against Agones' own SDK server: Ready once
// it serves, the rooms counter following its matches (up with each of two duels, down when
// the first ends),
// serving on once Allocated, playing on while the SDK server is killed and restarted (the
// counter sent again to the new one), and on SIGTERM draining (the match running finishes,
// not cut short) before it shuts down.
func TestAgones(t *testing.T) {
	sdk := agonestest.Start(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-metrics", "", "-open", "-drain", "1m",
			"-agones", sdk.URL}, &bytes.Buffer{}, &stderr, func(a, m string) { addrs <- [2]string{a, m} })
	}()
	var relayAddr *net.UDPAddr
	select {
	case a := <-addrs:
		relayAddr, _ = net.ResolveUDPAddr("udp", a[0])
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	sdk.WaitFor("Ready", "rooms", 0)

	// Two duels: the rooms counter goes up to 2, and back to 1 when the first ends.
	duel := func(match string, stop chan struct{}, errs []error, wg *sync.WaitGroup) {
		for h := range 2 {
			conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			players := make([]netplay.Player, 2)
			players[h].Local = true
			s, err := netplay.NewSession(net.PacketConn(conn), netplay.Config[byte]{Players: players, Codec: relaytest.ByteCodec{}, Relay: relayAddr, Match: match})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() { defer wg.Done(); errs[h] = play(s, h, stop) }()
		}
	}
	stop, stopFirst := make(chan struct{}), make(chan struct{})
	errs, firstErrs := make([]error, 2), make([]error, 2)
	var wg, firstWG sync.WaitGroup
	duel("first", stopFirst, firstErrs, &firstWG)
	sdk.WaitFor("Ready", "rooms", 1)
	duel("m", stop, errs, &wg)
	sdk.WaitFor("Ready", "rooms", 2)
	close(stopFirst) // its players leave: the match ends
	firstWG.Wait()
	for h, err := range firstErrs {
		if err != nil {
			t.Errorf("the first duel's player %d: %v", h, err)
		}
	}
	sdk.WaitFor("Ready", "rooms", 1)
	if err := sdk.Client.Allocate(context.Background()); err != nil {
		t.Fatal(err)
	}
	sdk.WaitFor("Allocated", "rooms", 1)

	// The SDK server killed and restarted: the relay plays on, and tells the new one its rooms.
	sdk.Kill()
	time.Sleep(500 * time.Millisecond)
	sdk.Restart()
	sdk.WaitFor("", "rooms", 1) // a new local SDK server holds the file's GameServer, with no state

	// SIGTERM, the match running: the relay drains; the players finish their match, then leave.
	cancel()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("run returned %v while its match ran, within -drain", err)
	default:
	}
	close(stop)
	wg.Wait()
	for h, err := range errs {
		if err != nil {
			t.Errorf("player %d: %v, want to have left the match itself", h, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	sdk.WaitFor("Shutdown", "rooms", 0)
	log := stderr.String()
	for _, want := range []string{"agones: Ready", "draining", "agones: Shutdown"} {
		if !strings.Contains(log, want) {
			t.Errorf("the relay's log has no %q:\n%s", want, log)
		}
	}
	if !strings.Contains(log, "health ping failed") {
		t.Logf("no health ping failed while the SDK server was down (it was down for less than a ping's period)")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestAgonesManifest: the GameServer of deploy/agones is one Agones' SDK server starts from,
// and the relay turns it Ready.
func TestAgonesManifest(t *testing.T) {
	sdk := agonestest.Start(t, filepath.Join("..", "..", "deploy", "agones", "gameserver.yaml"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-metrics", "", "-open", "-rooms-counter", "",
			"-agones", sdk.URL}, &bytes.Buffer{}, &stderr, nil)
	}()
	sdk.WaitFor("Ready", "rooms", -1)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	sdk.WaitFor("Shutdown", "rooms", -1)
}
