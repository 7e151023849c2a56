package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/agones/agonestest"
)

// TestAgones: matchserver as an Agones game server, against Agones' own SDK server: Ready once
// it serves; the rooms counter following its matches (up with each of two STARTs, down when
// one ENDs); Allocated, it
// serves on; its SDK server killed and restarted, the new one is told the rooms again; and on
// SIGTERM with -drain, a START is refused while the match running goes on and ends as its
// client asks, before the server shuts down and the GameServer is Shutdown.
func TestAgones(t *testing.T) {
	sdk := agonestest.Start(t, "")
	var log syncBuffer
	addr, _, _, stop, wait := startServerLogged(t, &log, "-agones", sdk.URL, "-drain", "1m")
	sdk.WaitFor("Ready", "rooms", 0)
	conn, in := dial(t, addr)
	defer conn.Close()
	fmt.Fprintln(conn, "START 7")
	if line := readLine(t, in); !strings.HasPrefix(line, "STARTED ") {
		t.Fatalf("START: %q", line)
	}
	sdk.WaitFor("Ready", "rooms", 1)
	// A second match: 2 rooms; it ends: 1.
	second, secondIn := dial(t, addr)
	fmt.Fprintln(second, "START 8")
	if line := readLine(t, secondIn); !strings.HasPrefix(line, "STARTED ") {
		t.Fatalf("START: %q", line)
	}
	sdk.WaitFor("Ready", "rooms", 2)
	fmt.Fprintln(second, "END")
	if line := readLine(t, secondIn); !strings.HasPrefix(line, "ENDED ") {
		t.Fatalf("END: %q", line)
	}
	second.Close()
	sdk.WaitFor("Ready", "rooms", 1)
	if err := sdk.Client.Allocate(context.Background()); err != nil {
		t.Fatal(err)
	}
	sdk.WaitFor("Allocated", "rooms", 1)
	sdk.Kill()
	time.Sleep(300 * time.Millisecond)
	sdk.Restart()
	sdk.WaitFor("", "rooms", 1)
	other, otherIn := dial(t, addr) // connected before SIGTERM, which stops accepting
	defer other.Close()

	stop() // SIGTERM
	// Another client's START is refused; this one's match goes on.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), "draining") {
		if time.Now().After(deadline) {
			t.Fatalf("the server does not say it drains:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintln(other, "START")
	if line := readLine(t, otherIn); !strings.Contains(line, "shutting down") {
		t.Errorf("START while draining: %q", line)
	}
	fmt.Fprintln(conn, "INPUT up")
	fmt.Fprintln(conn, "END")
	if line := readLine(t, in); !strings.HasPrefix(line, "ENDED ") {
		t.Fatalf("END while draining: %q", line)
	}
	conn.Close()
	if err := wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	sdk.WaitFor("Shutdown", "rooms", 0)
}

// TestAgonesManifest: the SDK server starts from deploy/agones's matchserver GameServer, and
// matchserver turns it Ready, then Shutdown.
func TestAgonesManifest(t *testing.T) {
	sdk := agonestest.Start(t, filepath.Join("..", "..", "deploy", "agones", "matchserver-gameserver.yaml"))
	_, _, _, stop, wait := startServer(t, "-agones", sdk.URL, "-rooms-counter", "")
	sdk.WaitFor("Ready", "rooms", -1)
	stop()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	sdk.WaitFor("Shutdown", "rooms", -1)
}
