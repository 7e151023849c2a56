package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/agones"
	"github.com/gameloop-go/gameloop/netplay"
)

// sdkServerPath is Agones' own SDK server, built from its source, beside the repository.
var sdkServerPath = filepath.Join("..", "..", "..", "shared", "agones", "sdk-server")

// sdkServer is Agones' SDK server, run locally (--local) from a GameServer file.
type sdkServer struct {
	t          *testing.T
	file       string
	http, grpc int
	health     int
	cmd        *exec.Cmd
	out        bytes.Buffer
	client     *agones.Client
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startSDKServer starts the SDK server with the GameServer in file, or skips the test where
// there is none.
func startSDKServer(t *testing.T, file string) *sdkServer {
	t.Helper()
	if _, err := os.Stat(sdkServerPath); err != nil {
		t.Skipf("no Agones SDK server at %s (%v): the integration is tested against it where it is", sdkServerPath, err)
	}
	s := &sdkServer{t: t, file: file, http: freePort(t), grpc: freePort(t), health: freePort(t)}
	var err error
	if s.client, err = agones.New(fmt.Sprintf("http://127.0.0.1:%d", s.http), nil); err != nil {
		t.Fatal(err)
	}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *sdkServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(sdkServerPath, "--local", "--address", "127.0.0.1", "--http-port", fmt.Sprint(s.http),
		"--grpc-port", fmt.Sprint(s.grpc), "--health-port", fmt.Sprint(s.health), "-f", s.file, "--graceful-termination=false")
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := s.client.GameServer(context.Background()); err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the SDK server did not answer in a minute:\n%s", s.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *sdkServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// state returns the GameServer's state and rooms counter.
func (s *sdkServer) state() (string, int64) {
	gs, err := s.client.GameServer(context.Background())
	if err != nil {
		return "(" + err.Error() + ")", -1
	}
	return gs.Status.State, gs.Status.Counters["rooms"].Count
}

// waitFor polls until the GameServer's state and rooms counter are as wanted.
func (s *sdkServer) waitFor(state string, rooms int64) {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, n := s.state()
		if st == state && (rooms < 0 || n == rooms) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the GameServer is %s with %d rooms after a minute, want %s with %d", st, n, state, rooms)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const testGameServer = `apiVersion: "agones.dev/v1"
kind: GameServer
metadata:
  name: relay
spec:
  counters:
    rooms:
      count: 0
      capacity: 100
status:
  counters:
    rooms:
      count: 0
      capacity: 100
`

// TestAgones: the relay as an Agones game server, against Agones' own SDK server: Ready once
// it serves, the rooms counter following its matches (up with a duel, down when it ends),
// serving on once Allocated, playing on while the SDK server is killed and restarted (the
// counter sent again to the new one), and on SIGTERM draining (the match running finishes,
// not cut short) before it shuts down.
func TestAgones(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gameserver.yaml")
	if err := os.WriteFile(file, []byte(testGameServer), 0o644); err != nil {
		t.Fatal(err)
	}
	sdk := startSDKServer(t, file)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-metrics", "", "-open", "-drain", "1m",
			"-agones", fmt.Sprintf("http://127.0.0.1:%d", sdk.http)}, &bytes.Buffer{}, &stderr, func(a, m string) { addrs <- [2]string{a, m} })
	}()
	var relayAddr *net.UDPAddr
	select {
	case a := <-addrs:
		relayAddr, _ = net.ResolveUDPAddr("udp", a[0])
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	sdk.waitFor("Ready", 0)

	// A duel: the rooms counter goes up.
	stop := make(chan struct{})
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for h := range 2 {
		conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		players := make([]netplay.Player, 2)
		players[h].Local = true
		s, err := netplay.NewSession(net.PacketConn(conn), netplay.Config[byte]{Players: players, Codec: byteCodec{}, Relay: relayAddr, Match: "m"})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); errs[h] = play(s, h, stop) }()
	}
	sdk.waitFor("Ready", 1)
	if err := sdk.client.Allocate(context.Background()); err != nil {
		t.Fatal(err)
	}
	sdk.waitFor("Allocated", 1)

	// The SDK server killed and restarted: the relay plays on, and tells the new one its rooms.
	sdk.kill()
	time.Sleep(500 * time.Millisecond)
	sdk.start()
	sdk.waitFor("", 1) // a new local SDK server holds the file's GameServer, with no state

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
	sdk.waitFor("Shutdown", 0)
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
	sdk := startSDKServer(t, filepath.Join("..", "..", "deploy", "agones", "gameserver.yaml"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-metrics", "", "-open", "-rooms-counter", "",
			"-agones", fmt.Sprintf("http://127.0.0.1:%d", sdk.http)}, &bytes.Buffer{}, &stderr, nil)
	}()
	sdk.waitFor("Ready", -1)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	sdk.waitFor("Shutdown", -1)
}
