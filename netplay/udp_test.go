package netplay

import (
	"bytes"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestUDP plays two sessions over real UDP sockets on 127.0.0.1, each read by its reader
// goroutine, stepping ticks on simulated time while the packets travel for real, and checks
// that they play the same game and that Close ends the readers.
func TestUDP(t *testing.T) {
	var conns [2]*net.UDPConn
	for i := range conns {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	var sessions [2]*Session[testInput]
	var games [2]*testGame
	for h := range sessions {
		players := make([]Player, 2)
		players[h] = Player{Local: true}
		players[1-h] = Player{Addr: conns[1-h].LocalAddr()}
		s, err := NewSession(conns[h], Config[testInput]{Players: players, Codec: byteCodec{}})
		if err != nil {
			t.Fatal(err)
		}
		sessions[h] = s
		games[h] = newTestGame(2, s.Slots(), uint64(h), 400)
		games[h].session = s
	}
	if got := readers(); got != 2 {
		t.Errorf("%d reader goroutines with two sessions, want one each", got)
	}
	// Each session's time moves on a tick for each round, and the round waits until the
	// other's packets for that tick have come (or a second has passed: packets may be lost).
	const ticks = 300
	now := time.Duration(0)
	for sessions[0].Tick() < ticks || sessions[1].Tick() < ticks {
		now += time.Second / 60
		for h, s := range sessions {
			if s.Tick() >= ticks {
				s.Poll(now)
				continue
			}
			if err := s.AddLocalInput(h, games[h].LocalInput(h)); err != nil {
				t.Fatal(err)
			}
			reqs, err := s.Advance(now)
			if err == nil {
				err = Run(reqs, Game[testInput](games[h]))
			}
			if err != nil && err != ErrNotSynchronized && err != ErrPredictionThreshold {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(time.Second)
		for sessions[0].Stats().PacketsReceived+sessions[1].Stats().PacketsReceived <
			sessions[0].Stats().PacketsSent+sessions[1].Stats().PacketsSent && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
			for _, s := range sessions {
				s.Poll(now)
			}
		}
		if now > 60*time.Second {
			t.Fatalf("ticks %d and %d after a minute of game time", sessions[0].Tick(), sessions[1].Tick())
		}
	}
	for tick := uint64(1); tick <= ticks-uint64(sessions[0].window); tick++ {
		if games[0].sums[tick-1] != games[1].sums[tick-1] {
			t.Fatalf("tick %d: checksums %#x and %#x", tick, games[0].sums[tick-1], games[1].sums[tick-1])
		}
	}
	for _, s := range sessions {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// A reader has returned when Close does; it may take a moment more to be gone.
	deadline := time.Now().Add(5 * time.Second)
	for readers() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := readers(); got != 0 {
		t.Errorf("%d reader goroutines after Close", got)
	}
}

// readers returns the number of the sessions' reader goroutines running.
func readers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte("created by github.com/gameloop-go/gameloop/netplay.newTransport"))
}
