//go:build !js

package rtc_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
	"github.com/gameloop-go/gameloop/netsim"
)

// buttons is the test game's input.
type buttons uint8

type buttonsCodec struct{}

func (buttonsCodec) Size() int                 { return 1 }
func (buttonsCodec) Put(dst []byte, b buttons) { dst[0] = byte(b) }
func (buttonsCodec) Get(src []byte) buttons    { return buttons(src[0]) }

// state is the test game's whole state: integers only.
type state struct {
	tick uint64
	pos  [netplay.MaxPlayers]int64
	mix  uint64
}

// game is a small deterministic game for players, which notes the checksum of every tick as
// last saved.
type game struct {
	st    state
	slots []state
	sums  []uint64 // by tick
}

func newGame(slots, ticks int) *game {
	return &game{slots: make([]state, slots), sums: make([]uint64, ticks+1)}
}

// bot is player h's input at tick: held for 13 ticks at a time, as a player holds buttons.
func bot(h int, tick uint64) buttons {
	x := (tick/13 + 1) * uint64(h+7) * 0x9e3779b97f4a7c15
	return buttons(x >> 61)
}

func (g *game) LocalInput(h int) buttons { return bot(h, g.st.tick+1) }

func (g *game) Step(tick uint64, inputs []netplay.PlayerInput[buttons]) error {
	g.st.tick = tick
	for h, in := range inputs {
		g.st.pos[h] += int64(in.Input) - 3
		g.st.mix = (g.st.mix^uint64(in.Input))*0x100000001b3 + uint64(h)
	}
	return nil
}

func (g *game) Save(slot int) uint64 {
	g.slots[slot] = g.st
	sum := g.st.mix
	for _, p := range g.st.pos {
		sum = sum*31 + uint64(p)
	}
	if g.st.tick < uint64(len(g.sums)) {
		g.sums[g.st.tick] = sum
	}
	return sum
}

func (g *game) Load(slot int) { g.st = g.slots[slot] }

// play runs a netplay session per conn (players from the rtc conns, in the same order) in
// real time at 60 Hz, one goroutine stepping them all, until every session has ticks ticks
// confirmed, and checks that they agree on the checksum of every tick. Only the guard's
// deadline fails it for time: a slow machine plays slower, not otherwise.
func play(t *testing.T, rtcs []*rtc.Conn, conns []net.PacketConn, ticks int) []*netplay.Session[buttons] {
	t.Helper()
	sessions := make([]*netplay.Session[buttons], len(conns))
	games := make([]*game, len(conns))
	for i, c := range conns {
		s, err := netplay.NewSession(c, netplay.Config[buttons]{
			Players: rtcs[i].Players(), Codec: buttonsCodec{},
			DisconnectTimeout: guard, DisconnectNotice: guard / 2, // no timing decides the outcome
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		sessions[i], games[i] = s, newGame(s.Slots(), ticks)
	}
	start := time.Now()
	var events []netplay.Event
	for frame := 1; ; frame++ {
		now := time.Since(start)
		if now > guard {
			t.Fatalf("after %v: ticks %v", guard, confirmed(sessions))
		}
		done := true
		for i, s := range sessions {
			// Every session plays on until all have the ticks confirmed: a session sends
			// its inputs (and sends lost ones again) as it advances.
			h := rtcs[i].Index()
			if err := advance(s, h, games[i], now); err != nil {
				t.Fatalf("member %d: %v", h, err)
			}
			for _, e := range s.Events(events[:0]) {
				if e.Kind == netplay.EventDesync || e.Kind == netplay.EventDisconnected {
					t.Fatalf("member %d: %v", h, e)
				}
			}
			if s.Stats().Confirmed < uint64(ticks) {
				done = false
			}
		}
		if done {
			break
		}
		time.Sleep(time.Until(start.Add(time.Duration(frame) * time.Second / 60)))
	}
	for tick := 1; tick <= ticks; tick++ {
		for i := 1; i < len(games); i++ {
			if games[i].sums[tick] != games[0].sums[tick] {
				t.Fatalf("tick %d: member %d's checksum %#x, member 0's %#x", tick, rtcs[i].Index(), games[i].sums[tick], games[0].sums[tick])
			}
		}
	}
	return sessions
}

// advance adds player h's input to s, advances s and carries out its requests on g. A tick
// the session cannot run yet (not synchronized, too far ahead) is skipped; it returns any other
// error.
func advance(s *netplay.Session[buttons], h int, g *game, now time.Duration) error {
	if err := s.AddLocalInput(h, g.LocalInput(h)); err != nil {
		return err
	}
	reqs, err := s.Advance(now)
	if err == nil {
		err = netplay.Run(reqs, g)
	}
	if errors.Is(err, netplay.ErrNotSynchronized) || errors.Is(err, netplay.ErrPredictionThreshold) {
		return nil
	}
	return err
}

func confirmed[I comparable](sessions []*netplay.Session[I]) []uint64 {
	var out []uint64
	for _, s := range sessions {
		out = append(out, s.Stats().Confirmed)
	}
	return out
}

// TestNetplay: two netplay sessions over rtc Conns play the same game, and the sessions'
// traffic counts are the Conns': what netplay sent is what the Conn handed its data channel
// (or dropped, a full send buffer), what it read is what the Conn received, less what waits
// unread.
func TestNetplay(t *testing.T) {
	url, _ := startLobby(t, lobby.Config{})
	rtcs := dialRoom(t, url, "netplay", 2, nil)
	sessions := play(t, rtcs, []net.PacketConn{rtcs[0], rtcs[1]}, 120)
	for i, s := range sessions {
		ss, cs := s.Stats(), rtcs[i].Stats()
		if ss.PacketsSent != cs.PacketsSent+cs.SendDropped || ss.PacketsSent < 120 {
			t.Errorf("member %d: the session sent %d datagrams, the conn %d (%d dropped)", i, ss.PacketsSent, cs.PacketsSent, cs.SendDropped)
		}
		if ss.BytesSent < cs.BytesSent || ss.BytesSent == 0 {
			t.Errorf("member %d: the session sent %d bytes, the conn %d", i, ss.BytesSent, cs.BytesSent)
		}
		if ss.PacketsReceived > cs.PacketsReceived || ss.PacketsReceived+uint64(rtc.DefaultQueueLen) < cs.PacketsReceived || ss.PacketsReceived < 100 {
			t.Errorf("member %d: the session read %d datagrams, the conn received %d", i, ss.PacketsReceived, cs.PacketsReceived)
		}
		if ss.BytesReceived > cs.BytesReceived || ss.BytesReceived == 0 {
			t.Errorf("member %d: the session read %d bytes, the conn received %d", i, ss.BytesReceived, cs.BytesReceived)
		}
	}
}

// TestNetplayPoor: the same over netsim's "poor" conditions (100 ms ± 50 ms, 5% loss) each
// way: each Conn wrapped by netsim.Wrap, which keeps its TryReadFrom.
func TestNetplayPoor(t *testing.T) {
	poor, err := netsim.Preset("poor")
	if err != nil {
		t.Fatal(err)
	}
	url, _ := startLobby(t, lobby.Config{})
	rtcs := dialRoom(t, url, "poor", 2, nil)
	wrapped := make([]net.PacketConn, len(rtcs))
	for i, c := range rtcs {
		wrapped[i] = netsim.Wrap(c, poor, uint64(i+1))
		if _, ok := wrapped[i].(*netsim.WrappedTry); !ok {
			t.Fatalf("the wrapped rtc Conn is a %T: it lost TryReadFrom", wrapped[i])
		}
	}
	play(t, rtcs, wrapped, 120)
	for i, w := range wrapped {
		if st := w.(*netsim.WrappedTry).Stats(); st.Dropped == 0 {
			t.Errorf("member %d: nothing dropped under poor: %+v", i, st)
		}
	}
}
