package netplay

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// FuzzReceive feeds a running session packets from its peer's address, made of the fuzzer's
// bytes with the session's id written in (so that they pass that check and reach the
// handlers), and checks that it never panics, that every packet is taken or dropped, and that
// the requests it goes on giving are well formed: ticks in order, every input of a status,
// loads only of ticks it saved and still holds.
func FuzzReceive(f *testing.F) {
	seed := func(m *wire.Message) {
		b, err := wire.Append(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed(&wire.Message{Header: wire.Header{Kind: wire.KindKeepAlive}})
	seed(&wire.Message{Header: wire.Header{Kind: wire.KindChecksumReport}, Tick: 60, Sum: 1})
	seed(&wire.Message{Header: wire.Header{Kind: wire.KindQualityReport}, TicksAhead: -3, PingSent: 5})
	seed(&wire.Message{Header: wire.Header{Kind: wire.KindInputAck}, AckTick: 7})
	in := &wire.Message{Header: wire.Header{Kind: wire.KindInput}, StartTick: 1, AckTick: wire.NoTick,
		Handles: 1 << 1, InputSize: 1, Players: 2}
	if _, err := in.PackInputs([]byte{0}, []byte{1, 2, 3, 4, 5}); err != nil {
		f.Fatal(err)
	}
	seed(in)
	in.Status[1] = wire.PlayerStatus{Disconnected: true, LastTick: 3}
	seed(in)
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sm := newSim(t, simConfig{players: 2, ticks: 300, seed: 1})
		now := time.Duration(0)
		for ; now < 1500*time.Millisecond; now += time.Millisecond {
			sm.step(now)
		}
		target, sender := sm.peers[0], sm.peers[1]
		pkt := append([]byte(nil), data...)
		if len(pkt) >= wire.HeaderSize {
			binary.LittleEndian.PutUint32(pkt[4:], target.s.peers[0].session)
		}
		st := target.s.Stats()
		if _, err := sender.conn.WriteTo(pkt, target.conn.LocalAddr()); err != nil && len(pkt) <= 1500 {
			t.Fatal(err)
		}
		// Step the target by hand, checking every request.
		last := target.s.Tick()
		saved := map[uint64]bool{}
		for t := last - min(last, uint64(target.s.depth)+1); t <= last; t++ {
			saved[t] = true // held from before
		}
		for end := now + time.Second; now < end; now += time.Millisecond {
			sm.net.Advance(time.Millisecond)
			sender.s.Poll(now)
			if now%(time.Second/60) >= time.Millisecond {
				continue
			}
			_ = target.s.AddLocalInput(0, 1)
			reqs, err := target.s.Advance(now)
			if err != nil {
				continue
			}
			for _, r := range reqs {
				switch r.Kind {
				case Load:
					if !saved[r.Tick] || r.Tick+uint64(target.s.depth)+1 < target.s.tick {
						t.Fatalf("load of tick %d, not held, at tick %d", r.Tick, target.s.tick)
					}
					last = r.Tick
				case Advance:
					if r.Tick != last+1 || len(r.Inputs) != 2 {
						t.Fatalf("advance to tick %d after tick %d, %d inputs", r.Tick, last, len(r.Inputs))
					}
					for _, in := range r.Inputs {
						if in.Status > Disconnected {
							t.Fatalf("tick %d: input %v", r.Tick, in)
						}
					}
					last = r.Tick
				case Save:
					saved[r.Tick] = true
				}
			}
		}
		got := target.s.Stats()
		if got.PacketsReceived <= st.PacketsReceived && len(pkt) <= 1500 && len(pkt) > 0 {
			t.Fatalf("the packet was not received: %+v", got)
		}
	})
}
