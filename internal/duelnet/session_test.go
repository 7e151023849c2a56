package duelnet

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/netplay"
)

// guard bounds the wait for the two sessions to measure a round trip: it fails a test that
// hangs, never passes one.
const guard = 2 * time.Minute

// TestShowSessionPing: the status line reads "ping - ahead -" until a round trip has been
// measured, though the other player has answered (it read "ping 0ms"); then the figures.
func TestShowSessionPing(t *testing.T) {
	var conns [2]net.PacketConn
	for i := range conns {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	var sessions [2]*netplay.Session[duel.Input]
	for i := range sessions {
		s, err := netplay.NewSession(conns[i], Config(i, conns[1-i].LocalAddr(), Settings{Delay: 2, Window: 8, Seed: 1}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		sessions[i] = s
	}
	view := duel.NewView(nil)
	line := func(s *netplay.Session[duel.Input]) string {
		var st duel.Status
		ShowSession(&st, s, 0, false)
		return string(view.AppendStatus(nil, &duel.State{}, &st))
	}
	if got := line(sessions[0]); !strings.HasPrefix(got, "left ping - ahead - ") {
		t.Errorf("before any round trip: %q, want ping and ahead \"-\"", got)
	}
	start := time.Now()
	for sessions[0].PeerStats(1).Ping == 0 {
		if time.Since(start) > guard {
			t.Fatalf("no round trip measured in %v", guard)
		}
		for _, s := range sessions {
			if _, err := s.Advance(time.Since(start)); err != nil && !errors.Is(err, netplay.ErrNotSynchronized) && !errors.Is(err, netplay.ErrPredictionThreshold) {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Millisecond)
	}
	if got := line(sessions[0]); !strings.HasPrefix(got, "left ping ") || strings.HasPrefix(got, "left ping -") {
		t.Errorf("with a round trip measured: %q, want its figure", got)
	}
}
