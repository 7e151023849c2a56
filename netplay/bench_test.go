package netplay

import (
	"fmt"
	"testing"
	"time"
)

// ballGame is a bounce-like simulation for the benchmarks: balls in fixed point flying in a
// box under gravity and bouncing off its walls, pushed by the players' inputs, with every
// state kept in slots as a rollback game keeps them.
type ballGame struct {
	st    ballState
	slots []ballState
}

type ballState struct {
	tick  uint64
	balls []ball
}

type ball struct {
	x, y, vx, vy int64
}

const (
	ballUnit  = 1 << 16
	boxWidth  = 320 * ballUnit
	boxHeight = 200 * ballUnit
	gravity   = ballUnit / 8
)

func newBallGame(n, slots int) *ballGame {
	g := &ballGame{st: ballState{balls: make([]ball, n)}, slots: make([]ballState, slots)}
	for i := range g.slots {
		g.slots[i].balls = make([]ball, n)
	}
	for i := range g.st.balls {
		b := &g.st.balls[i]
		b.x, b.y = int64(i*7919)%boxWidth, int64(i*104729)%boxHeight
		b.vx, b.vy = int64(i%13-6)*ballUnit/4, int64(i%7-3)*ballUnit/4
	}
	return g
}

func (g *ballGame) LocalInput(int) testInput { return 0 }

func (g *ballGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	g.st.tick = tick
	var push int64
	for _, in := range inputs {
		push += int64(in.Input&3) - 1
	}
	for i := range g.st.balls {
		b := &g.st.balls[i]
		b.vy += gravity
		b.vx += push
		b.x += b.vx
		b.y += b.vy
		if b.x < 0 || b.x >= boxWidth {
			b.vx = -b.vx
			b.x = min(max(b.x, 0), boxWidth-1)
		}
		if b.y < 0 || b.y >= boxHeight {
			b.vy = -b.vy
			b.y = min(max(b.y, 0), boxHeight-1)
		}
	}
	return nil
}

func (g *ballGame) Save(slot int) uint64 {
	s := &g.slots[slot]
	s.tick = g.st.tick
	copy(s.balls, g.st.balls)
	h := uint64(14695981039346656037) ^ g.st.tick
	for _, b := range g.st.balls {
		h = (h ^ uint64(b.x)) * 1099511628211
		h = (h ^ uint64(b.y)) * 1099511628211
		h = (h ^ uint64(b.vx)) * 1099511628211
		h = (h ^ uint64(b.vy)) * 1099511628211
	}
	return h
}

func (g *ballGame) Load(slot int) {
	g.st.tick = g.slots[slot].tick
	copy(g.st.balls, g.slots[slot].balls)
}

// BenchmarkWorstTick measures the worst tick of a session at the default prediction window of
// 8: a load, the 8 ticks since played again and the new one, and a save after each (a sync
// test at check distance 8 does exactly this every tick). %tick is its share of a 60 Hz tick.
func BenchmarkWorstTick(b *testing.B) {
	for _, balls := range []int{100, 1000} {
		b.Run(fmt.Sprintf("balls=%d", balls), func(b *testing.B) {
			st, err := NewSyncTest(SyncTestConfig[testInput]{Players: 2, CheckDistance: DefaultPredictionWindow})
			if err != nil {
				b.Fatal(err)
			}
			g := newBallGame(balls, st.Slots())
			tick := func() {
				for h := range 2 {
					_ = st.AddLocalInput(h, bot(0, h, st.Tick()+1))
				}
				reqs, err := st.Advance()
				if err == nil {
					err = Run(reqs, Game[testInput](g))
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			for range DefaultPredictionWindow + 1 {
				tick()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				tick()
			}
			perTick := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(100*perTick*60, "%tick")
		})
	}
}

// BenchmarkBandwidth plays a minute of a game at 60 Hz between 2 and 4 peers under the
// netsim presets none and poor, and reports what one peer sends to each other peer, payload
// only (B/s), and the packets a second.
func BenchmarkBandwidth(b *testing.B) {
	for _, players := range []int{2, 4} {
		for _, preset := range []string{"none", "poor"} {
			b.Run(fmt.Sprintf("players=%d/preset=%s", players, preset), func(b *testing.B) {
				var bytes, packets float64
				for b.Loop() {
					sm := newSim(b, simConfig{players: players, ticks: 60 * 60, preset: preset, seed: 5})
					sm.run()
					st := sm.peers[0].s.Stats()
					secs := (sm.end() + 2*time.Second - sm.running).Seconds()
					bytes = float64(st.BytesSent) / secs / float64(players-1)
					packets = float64(st.PacketsSent) / secs / float64(players-1)
				}
				b.ReportMetric(bytes, "B/s")
				b.ReportMetric(packets, "packets/s")
			})
		}
	}
}

// BenchmarkSessionTick measures a tick of two peers in steady state under the poor preset:
// each adds its input, advances (rolling back as inputs arrive), carries out the requests on
// the small test game and exchanges its packets. Run it with -benchmem: 0 allocs/op.
func BenchmarkSessionTick(b *testing.B) {
	sm := newSim(b, simConfig{players: 2, ticks: 1 << 20, preset: "poor", seed: 3})
	now := time.Duration(0)
	for ; now < 10*time.Second; now += time.Millisecond {
		sm.step(now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for range 17 {
			sm.step(now)
			now += time.Millisecond
		}
	}
}
