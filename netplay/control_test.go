package netplay

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// pair is two sessions over netsim's in-memory network, 20 ms apart, each running a test game,
// ticked by hand.
type pair struct {
	net      *netsim.Network
	sessions [2]*Session[testInput]
	games    [2]*testGame
}

func newPair(t *testing.T, delay int) *pair {
	t.Helper()
	p := &pair{net: netsim.NewNetwork(9)}
	var conns [2]*netsim.Conn
	for i := range conns {
		c, err := p.net.Listen([]string{"a", "b"}[i])
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	p.net.SetConditions("a", "b", netsim.Conditions{Latency: 20 * time.Millisecond})
	p.net.SetConditions("b", "a", netsim.Conditions{Latency: 20 * time.Millisecond})
	for h := range p.sessions {
		players := make([]Player, 2)
		players[h] = Player{Local: true}
		players[1-h] = Player{Addr: conns[1-h].LocalAddr()}
		s, err := NewSession(conns[h], Config[testInput]{Players: players, Codec: byteCodec{}, InputDelay: delay, Rand: &seqReader{x: uint64(h) + 3}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		p.sessions[h], p.games[h] = s, newTestGame(2, s.Slots(), uint64(h), 4000)
	}
	return p
}

// tick moves the network on by a tick's time and runs a tick on each session with input(h,
// tick) as player h's input.
func (p *pair) tick(t *testing.T, input func(h int, tick uint64) testInput) {
	t.Helper()
	for range 16 {
		p.net.Advance(time.Millisecond)
		p.sessions[0].Poll(p.net.Now())
		p.sessions[1].Poll(p.net.Now())
	}
	p.net.Advance(time.Millisecond)
	for h, s := range p.sessions {
		if err := s.AddLocalInput(h, input(h, s.Tick()+1)); err != nil {
			t.Fatal(err)
		}
		reqs, err := s.Advance(p.net.Now())
		if err == nil {
			err = Run(reqs, Game[testInput](p.games[h]))
		}
		if err != nil && !errors.Is(err, ErrNotSynchronized) && !errors.Is(err, ErrPredictionThreshold) {
			t.Fatal(err)
		}
	}
}

// TestSetInputDelay: a delay made longer repeats the last input for the ticks it leaves
// without one, a delay made shorter drops the inputs added until the game reaches the ticks
// already scheduled, and both peers play the same game throughout. Player 0's input is the
// number of the tick it was added for; its delay goes from 2 to 6 at tick 100 and to 1 at
// tick 200.
func TestSetInputDelay(t *testing.T) {
	p := newPair(t, 2)
	input := func(h int, tick uint64) testInput { return testInput(tick) }
	s0 := p.sessions[0]
	for s0.Tick() < 240 || p.sessions[1].Tick() < 240 {
		switch s0.Tick() {
		case 99:
			if err := s0.SetInputDelay(6); err != nil {
				t.Fatal(err)
			}
		case 199:
			if err := s0.SetInputDelay(1); err != nil {
				t.Fatal(err)
			}
		}
		p.tick(t, input)
		if p.net.Now() > time.Minute {
			t.Fatalf("ticks %d and %d after a minute", s0.Tick(), p.sessions[1].Tick())
		}
	}
	if err := s0.SetInputDelay(MaxInputDelay + 1); err == nil {
		t.Error("SetInputDelay took a delay past MaxInputDelay")
	}
	// The model: the input added for tick n lands on n + the delay at n, unless a tick at or
	// after that already has one; ticks left between take the last input.
	want := make([]testInput, 260)
	last := uint64(2) // ticks 1 and 2, before the first input, have the zero input
	for n := uint64(1); n <= 240; n++ {
		d := uint64(2)
		switch {
		case n >= 200:
			d = 1
		case n >= 100:
			d = 6
		}
		if at := n + d; at > last {
			for tk := last + 1; tk < at; tk++ {
				want[tk] = want[tk-1]
			}
			want[at], last = testInput(n), at
		}
	}
	for tk := uint64(1); tk <= 230; tk++ {
		for h, g := range p.games {
			if got := g.log[(tk-1)*2].Input; got != want[tk] {
				t.Fatalf("tick %d: player 0's input %d at peer %d, want %d", tk, got, h, want[tk])
			}
		}
		if p.games[0].sums[tk-1] != p.games[1].sums[tk-1] {
			t.Fatalf("tick %d: checksums differ", tk)
		}
	}
	if !slices.Equal(want[101:107], []testInput{99, 99, 99, 99, 99, 100}) || want[205] != 199 || want[206] != 205 {
		t.Fatalf("the model is not what the test means: %v", want[95:210])
	}
}

// TestHandlesAndChecksum: the handles of the local and remote players, and the checksum of a
// final tick as the game saved it (none for a tick not final).
func TestHandlesAndChecksum(t *testing.T) {
	p := newPair(t, 0)
	if got := p.sessions[1].LocalHandles(); !slices.Equal(got, []int{1}) {
		t.Errorf("LocalHandles = %v, want [1]", got)
	}
	if got := p.sessions[1].RemoteHandles(); !slices.Equal(got, []int{0}) {
		t.Errorf("RemoteHandles = %v, want [0]", got)
	}
	for p.sessions[0].Tick() < 300 {
		p.tick(t, func(h int, tick uint64) testInput { return bot(1, h, tick) })
	}
	s := p.sessions[0]
	final := s.Stats().Confirmed
	for tk := final - 100; tk <= final; tk++ {
		sum, ok := s.Checksum(tk)
		if !ok || sum != p.games[0].sums[tk-1] {
			t.Fatalf("Checksum(%d) = %#x, %v; the game saved %#x", tk, sum, ok, p.games[0].sums[tk-1])
		}
	}
	if _, ok := s.Checksum(s.Tick() + 1); ok {
		t.Error("Checksum of a tick not run yet")
	}
}

// TestDisconnectPlayer: of three peers, peer 0 disconnects player 2 by hand: peer 2 leaves
// with ErrKicked, and peers 0 and 1 drop player 2 after the same tick and play on in the same
// game.
func TestDisconnectPlayer(t *testing.T) {
	sm := newSim(t, simConfig{players: 3, ticks: 900, preset: "poor", seed: 21,
		at: func(now time.Duration, sm *sim) {
			if now == 6*time.Second {
				if err := sm.peers[0].s.DisconnectPlayer(2); err != nil {
					t.Fatal(err)
				}
				if err := sm.peers[0].s.DisconnectPlayer(0); err == nil {
					t.Error("DisconnectPlayer of the local player")
				}
			}
		}})
	sm.run()
	if err := sm.peers[2].err; !errors.Is(err, ErrKicked) {
		t.Fatalf("peer 2 ended with %v, want ErrKicked", err)
	}
	sm.peers[2].done, sm.peers[2].err = true, nil // out of the game: check the two others
	var after [2]uint64
	for i := range 2 {
		q := sm.peers[i].s.queues[2]
		if !q.gone {
			t.Fatalf("peer %d did not drop player 2", i)
		}
		after[i] = q.goneAfter
	}
	if after[0] != after[1] {
		t.Errorf("player 2 dropped after tick %d at peer 0, %d at peer 1", after[0], after[1])
	}
	sm.check()
}

// predictedGame is the test game recording every input it ran with as Predicted.
type predictedGame struct {
	*testGame
	predicted []testInput
}

func (g *predictedGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	for _, in := range inputs {
		if in.Status == Predicted {
			g.predicted = append(g.predicted, in.Input)
		}
	}
	return g.testGame.Step(tick, inputs)
}

// TestPredict: with Config.Predict, a tick whose input has not arrived runs with the
// prediction of the player's last input, and the peers still end in the same game.
func TestPredict(t *testing.T) {
	sm := newSim(t, simConfig{players: 2, ticks: 600, preset: "poor", seed: 4,
		configure: func(h int, cfg *Config[testInput]) {
			cfg.Predict = func(last testInput) testInput { return last | 0x80 } // bots never set 0x80
		}})
	g := &predictedGame{testGame: sm.peers[0].g}
	sm.peers[0].update = NewLoopGame(sm.peers[0].s, Game[testInput](g), &sm.peers[0].clock)
	sm.run()
	sm.check()
	if len(g.predicted) < 100 {
		t.Fatalf("%d predicted inputs: the test did not test", len(g.predicted))
	}
	for _, in := range g.predicted {
		if in&0x80 == 0 {
			t.Fatalf("a tick ran with %#x predicted, not Predict's", in)
		}
	}
}
