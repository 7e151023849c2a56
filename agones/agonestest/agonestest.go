// Package agonestest runs Agones' own SDK server for tests (in local mode, from a GameServer
// file), where it is at hand: beside the repository, as ../shared/agones/sdk-server, or where
// AGONES_SDK_SERVER names it. A test that needs it is skipped, saying why, where it is not.
package agonestest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/agones"
)

// GameServer is a GameServer file with a "rooms" counter (capacity 100) and a "players" list
// (capacity 8), in its status as well as its spec: the local SDK server keeps only what the
// file's status holds.
const GameServer = `apiVersion: "agones.dev/v1"
kind: GameServer
metadata:
  name: test
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
  lists:
    players:
      capacity: 8
      values: []
`

// Path returns the SDK server's path, or "" where there is none.
func Path() string {
	if p := os.Getenv("AGONES_SDK_SERVER"); p != "" {
		return p
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// agones/agonestest in the repository; the repository's parent holds shared/.
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "agones", "sdk-server")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Server is an SDK server run by a test.
type Server struct {
	t      testing.TB
	file   string
	ports  [3]int // http, grpc, health
	cmd    *exec.Cmd
	out    lockedBuffer
	Client *agones.Client
	// URL is its REST API's, http://127.0.0.1:PORT.
	URL string
}

// Start starts the SDK server from the GameServer in file (GameServer's text if file is ""),
// stopped when the test ends, or skips the test where there is no SDK server.
func Start(t testing.TB, file string) *Server {
	t.Helper()
	path := Path()
	if path == "" {
		t.Skip("no Agones SDK server (../shared/agones/sdk-server beside the repository, or AGONES_SDK_SERVER): the Agones integration is tested against it where it is at hand")
	}
	if file == "" {
		file = filepath.Join(t.TempDir(), "gameserver.yaml")
		if err := os.WriteFile(file, []byte(GameServer), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &Server{t: t, file: file}
	for i := range s.ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", s.ports[0])
	var err error
	if s.Client, err = agones.New(s.URL, nil); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// Restart starts the SDK server again (after Kill), on the same ports, from the same file,
// and waits until it answers: a new local SDK server, which holds the file's GameServer.
func (s *Server) Restart() {
	s.t.Helper()
	s.cmd = exec.Command(Path(), "--local", "--address", "127.0.0.1", "--http-port", fmt.Sprint(s.ports[0]),
		"--grpc-port", fmt.Sprint(s.ports[1]), "--health-port", fmt.Sprint(s.ports[2]), "-f", s.file, "--graceful-termination=false")
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := s.Client.GameServer(context.Background()); err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the SDK server did not answer in a minute:\n%s", s.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills the SDK server.
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// State returns the GameServer's state and its counter's count (-1 if it has none).
func (s *Server) State(counter string) (string, int64) {
	gs, err := s.Client.GameServer(context.Background())
	if err != nil {
		return "(" + err.Error() + ")", -1
	}
	c, ok := gs.Status.Counters[counter]
	if !ok {
		return gs.Status.State, -1
	}
	return gs.Status.State, c.Count
}

// WaitFor waits until the GameServer is in state with counter at count (any count if count
// is negative), for a minute at most.
func (s *Server) WaitFor(state, counter string, count int64) {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, n := s.State(counter)
		if st == state && (count < 0 || n == count) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the GameServer is %q with %s at %d after a minute, want %q at %d", st, counter, n, state, count)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
