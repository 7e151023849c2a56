package netplay

import (
	"fmt"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/ballgame"
)

// ballGame is the benchmarks' game (package ballgame) as a Game: each input's low two bits,
// less one, push the balls sideways.
type ballGame struct{ *ballgame.Game }

func newBallGame(n, slots int) *ballGame { return &ballGame{ballgame.New(n, slots)} }

func (g *ballGame) LocalInput(int) testInput { return 0 }

func (g *ballGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	var push int64
	for _, in := range inputs {
		push += int64(in.Input&3) - 1
	}
	g.Game.Step(tick, push)
	return nil
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
