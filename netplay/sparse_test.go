package netplay

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
)

// countingGame is the test game, counting its saves and steps.
type countingGame struct {
	*testGame
	saves, steps int
}

func (g *countingGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	g.steps++
	return g.testGame.Step(tick, inputs)
}

func (g *countingGame) Save(slot int) uint64 {
	g.saves++
	return g.testGame.Save(slot)
}

// TestSparseSaving: with sparse saving, peers under poor and terrible play the same game, as
// without, while the game saves a small part of the ticks it steps; and it cannot be used
// with a recording.
func TestSparseSaving(t *testing.T) {
	for _, players := range []int{2, 4} {
		for _, preset := range []string{"poor", "terrible"} {
			t.Run(fmt.Sprintf("players=%d/preset=%s", players, preset), func(t *testing.T) {
				sm := newSim(t, simConfig{players: players, ticks: 3600, preset: preset, seed: 31,
					configure: func(h int, cfg *Config[testInput]) { cfg.SparseSaving = true }})
				games := make([]*countingGame, players)
				for i, p := range sm.peers {
					games[i] = &countingGame{testGame: p.g}
					p.update = NewLoopGame(p.s, Game[testInput](games[i]), &p.clock)
				}
				sm.run()
				sm.check()
				g, st := games[0], sm.peers[0].s.Stats()
				t.Logf("%d steps, %d saves; %d rollbacks, the deepest %d", g.steps, g.saves, st.Rollbacks, st.MaxRollback)
				if g.saves*2 > g.steps {
					t.Errorf("%d saves for %d steps: not sparse", g.saves, g.steps)
				}
				if sm.peers[0].s.Slots() != sparseSlots {
					t.Errorf("Slots = %d, want %d", sm.peers[0].s.Slots(), sparseSlots)
				}
			})
		}
	}
}

// bigGame is a game whose state is 16 KB and whose step touches a small part of it: a game
// whose save costs more than its step.
type bigGame struct {
	st    [2048]uint64
	slots [][2048]uint64
	tick  uint64
}

func (g *bigGame) LocalInput(int) testInput { return 0 }
func (g *bigGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	g.tick = tick
	for i, in := range inputs {
		for k := range 8 {
			g.st[(int(tick)*8+k+i*1024)%len(g.st)] += uint64(in.Input) + tick
		}
	}
	return nil
}
func (g *bigGame) Save(slot int) uint64 { g.slots[slot] = g.st; return g.st[g.tick%2048] ^ g.tick }
func (g *bigGame) Load(slot int)        { g.st = g.slots[slot] }

// BenchmarkSparseSaving plays two peers of a game with a 16 KB state under poor (a minute at
// 60 Hz), with and without sparse saving, and reports the saves and steps a tick on average
// and in peer 0's tick with the most of them (its worst tick: a save of 16 KB costs far more
// than a step of this game, save-ns and step-ns), and the 99th percentile of its ticks' time
// (its Advance and the requests carried out).
func BenchmarkSparseSaving(b *testing.B) {
	for _, sparse := range []bool{false, true} {
		b.Run(fmt.Sprintf("sparse=%v", sparse), func(b *testing.B) {
			var r sparseResult
			for b.Loop() {
				r = sparseRun(b, sparse)
			}
			b.ReportMetric(r.saves, "saves/tick")
			b.ReportMetric(r.steps, "steps/tick")
			b.ReportMetric(float64(r.worstSaves), "worst-saves")
			b.ReportMetric(float64(r.worstSteps), "worst-steps")
			b.ReportMetric(r.p99, "p99-µs")
			b.ReportMetric(r.saveNs, "save-ns")
			b.ReportMetric(r.stepNs, "step-ns")
		})
	}
}

type sparseResult struct {
	saves, steps           float64
	worstSaves, worstSteps int
	p99, saveNs, stepNs    float64
}

func sparseRun(b *testing.B, sparse bool) sparseResult {
	sm := newSim(b, simConfig{players: 2, ticks: 3600, preset: "poor", seed: 41,
		configure: func(h int, cfg *Config[testInput]) { cfg.SparseSaving = sparse }})
	p := sm.peers[0]
	g := &bigGame{slots: make([][2048]uint64, p.s.Slots())}
	var times []time.Duration
	var r sparseResult
	nsaves, nsteps, worst := 0, 0, 0
	count := func(reqs []Request[testInput]) {
		saves, steps := 0, 0
		for _, r := range reqs {
			switch r.Kind {
			case Save:
				saves++
			case Advance:
				steps++
			}
		}
		nsaves, nsteps = nsaves+saves, nsteps+steps
		// The cost of a tick in this game is mostly its saves.
		if w := saves*100 + steps; w > worst {
			worst, r.worstSaves, r.worstSteps = w, saves, steps
		}
	}
	p.update = &timedGame{s: p.s, g: g, now: p.clock.Now, times: &times, count: count}
	sm.run()
	slices.Sort(times)
	if len(times) == 0 {
		b.Fatal("no tick ran")
	}
	r.saves, r.steps = float64(nsaves)/float64(len(times)), float64(nsteps)/float64(len(times))
	r.p99 = float64(times[len(times)*99/100]) / float64(time.Microsecond)
	const n = 1000
	start := time.Now()
	for i := range n {
		g.Save(i % len(g.slots))
	}
	r.saveNs = float64(time.Since(start).Nanoseconds()) / n
	start = time.Now()
	for i := range n {
		_ = g.Step(uint64(i), []PlayerInput[testInput]{{Input: 1}, {Input: 2}})
	}
	r.stepNs = float64(time.Since(start).Nanoseconds()) / n
	return r
}

// timedGame runs a session's ticks from a loop's Update, timing each Advance and its requests.
type timedGame struct {
	s     *Session[testInput]
	g     Game[testInput]
	now   func() time.Duration
	times *[]time.Duration
	count func([]Request[testInput])
}

func (tg *timedGame) Update(*gameloop.Update) error {
	_ = tg.s.AddLocalInput(0, testInput(tg.s.Tick()/3))
	start := time.Now()
	reqs, err := tg.s.Advance(tg.now())
	if err != nil {
		return nil
	}
	if err := Run(reqs, tg.g); err != nil {
		return err
	}
	*tg.times = append(*tg.times, time.Since(start))
	tg.count(reqs)
	return nil
}
