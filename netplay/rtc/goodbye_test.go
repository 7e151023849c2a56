//go:build !js

package rtc_test

import (
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// TestGoodbye: 20 games of two netplay sessions over rtc Conns through a lobby, each ended by
// one player closing its session (the other, then the one, in turn): the player who stays
// hears the goodbye, and reports the other left (netplay.ReasonLeft), every time. Were the
// goodbye lost, it would report the other lost once unheard for DisconnectTimeout, long enough
// here that no load makes a player unheard that long.
func TestGoodbye(t *testing.T) {
	const games, ticks = 20, 30
	url, _ := startLobby(t, lobby.Config{})
	var heard, closing []time.Duration
	for g := range games {
		rtcs := dialRoom(t, url, "goodbye"+string(rune('a'+g)), 2, nil)
		leaver := g % 2
		left, took, closeTook := playAndLeave(t, rtcs, leaver, ticks)
		if left.Reason != netplay.ReasonLeft {
			t.Fatalf("game %d: member %d closed its session, and member %d says: %v; want it left", g, leaver, 1-leaver, left)
		}
		heard, closing = append(heard, took), append(closing, closeTook)
	}
	slices.Sort(heard)
	slices.Sort(closing)
	t.Logf("%d of %d games: the other player left; heard %v after Close began (median %v), Close took %v (median %v)",
		games, games, heard, heard[games/2], closing, closing[games/2])
}

// playAndLeave plays the sessions of rtcs in real time at 60 Hz until both have ticks
// confirmed, then closes leaver's session from another goroutine while the other plays on, and
// returns the event in which the other lost it, how long after Close began it came, and how
// long Close took.
func playAndLeave(t *testing.T, rtcs []*rtc.Conn, leaver, ticks int) (netplay.Event, time.Duration, time.Duration) {
	t.Helper()
	sessions := make([]*netplay.Session[buttons], len(rtcs))
	games := make([]*game, len(rtcs))
	for i, c := range rtcs {
		s, err := netplay.NewSession(c, netplay.Config[buttons]{
			Players: c.Players(), Codec: buttonsCodec{},
			DisconnectTimeout: 10 * time.Second, DisconnectNotice: 5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		sessions[i], games[i] = s, newGame(s.Slots(), 1<<16)
	}
	var closeStart time.Time
	closed := make(chan time.Duration, 1)
	start := time.Now()
	var events []netplay.Event
	for frame := 1; ; frame++ {
		now := time.Since(start)
		if now > guard {
			t.Fatalf("after %v: ticks %v", guard, confirmed(sessions))
		}
		for i, s := range sessions {
			if i == leaver && !closeStart.IsZero() {
				continue
			}
			h := rtcs[i].Index()
			if err := advance(s, h, games[i], now); err != nil {
				t.Fatalf("member %d: %v", h, err)
			}
			for _, e := range s.Events(events[:0]) {
				switch {
				case e.Kind == netplay.EventDesync:
					t.Fatalf("member %d: %v", h, e)
				case e.Kind == netplay.EventDisconnected && i != leaver:
					took := time.Since(closeStart)
					if closeStart.IsZero() {
						t.Fatalf("member %d, before the other closed: %v", h, e)
					}
					return e, took, <-closed
				}
			}
		}
		if closeStart.IsZero() && sessions[0].Stats().Confirmed >= uint64(ticks) && sessions[1].Stats().Confirmed >= uint64(ticks) {
			closeStart = time.Now()
			go func() {
				sessions[leaver].Close()
				closed <- time.Since(closeStart)
			}()
		}
		time.Sleep(time.Until(start.Add(time.Duration(frame) * time.Second / 60)))
	}
}
