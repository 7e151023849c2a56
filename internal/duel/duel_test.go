package duel

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// play runs a game of seed for ticks ticks between two bots seeded botSeed and botSeed+1, and
// returns the state and the checksum after every tick.
func play(seed, botSeed uint64, ticks int) (State, []uint64) {
	s := New(seed)
	bots := [2]Bot{NewBot(botSeed), NewBot(botSeed + 1)}
	sums := make([]uint64, 0, ticks)
	for range ticks {
		s.Step([2]Input{bots[0].Input(&s, 0), bots[1].Input(&s, 1)})
		sums = append(sums, s.Checksum())
	}
	return s, sums
}

// The same seeds give the same game, tick for tick; other seeds another.
func TestDeterministic(t *testing.T) {
	a, sumsA := play(1, 7, 3600)
	b, sumsB := play(1, 7, 3600)
	if a != b {
		t.Fatalf("two games of the same seeds differ:\n%+v\n%+v", a, b)
	}
	for i := range sumsA {
		if sumsA[i] != sumsB[i] {
			t.Fatalf("tick %d: checksums %016x and %016x", i+1, sumsA[i], sumsB[i])
		}
	}
	c, _ := play(2, 7, 3600)
	d, _ := play(1, 8, 3600)
	if c.Checksum() == a.Checksum() || d.Checksum() == a.Checksum() {
		t.Errorf("another game seed or bot seed gave the same final checksum %016x", a.Checksum())
	}
}

// Two bots play a game worth watching: the ball is returned, points are won on both sides.
func TestBotsPlay(t *testing.T) {
	s := New(3)
	bots := [2]Bot{NewBot(10), NewBot(11)}
	maxHits := 0
	for range 60 * TickRate {
		s.Step([2]Input{bots[0].Input(&s, 0), bots[1].Input(&s, 1)})
		maxHits = max(maxHits, int(s.Hits))
		if s.Ball.Y < 0 || s.Ball.Y >= Height*Unit || s.Ball.X < 0 || s.Ball.X >= Width*Unit {
			t.Fatalf("tick %d: the ball is off the field: %+v", s.Tick, s.Ball)
		}
		for i, p := range s.Paddles {
			if p.Y < 0 || p.Y > (Height-PaddleHeight)*Unit {
				t.Fatalf("tick %d: paddle %d is off the field: %+v", s.Tick, i, p)
			}
		}
	}
	t.Logf("a minute of play: score %d : %d, longest rally %d hits", s.Score[0], s.Score[1], maxHits)
	if s.Score[0] == 0 || s.Score[1] == 0 || maxHits < 4 {
		t.Errorf("a minute of play: score %d : %d, longest rally %d hits; want points on both sides and rallies of 4 hits or more",
			s.Score[0], s.Score[1], maxHits)
	}
}

// Saving is a copy and loading is a copy: a game loaded from a save goes on exactly as the
// game saved did, whatever was played in between. This is what a rollback does.
func TestSaveLoadReproducesFuture(t *testing.T) {
	s := New(5)
	bot := [2]Bot{NewBot(1), NewBot(2)}
	for range 500 {
		s.Step([2]Input{bot[0].Input(&s, 0), bot[1].Input(&s, 1)})
	}
	saved := s
	savedBots := bot
	var want []uint64
	for range 300 {
		s.Step([2]Input{bot[0].Input(&s, 0), bot[1].Input(&s, 1)})
		want = append(want, s.Checksum())
	}
	end := s

	// Play something else for a while, as a wrong prediction would.
	for i := range 200 {
		s.Step([2]Input{Up, Input(i%3) & (Up | Down)})
	}
	s, bot = saved, savedBots
	for i := range 300 {
		s.Step([2]Input{bot[0].Input(&s, 0), bot[1].Input(&s, 1)})
		if got := s.Checksum(); got != want[i] {
			t.Fatalf("after loading, tick %d: checksum %016x, want %016x", s.Tick, got, want[i])
		}
	}
	if s != end {
		t.Fatalf("after loading and replaying: %+v, want %+v", s, end)
	}
}

// Every field is in the checksum: a change to any one of them changes it.
func TestChecksumCoversEveryField(t *testing.T) {
	base := New(9)
	base.Step([2]Input{Up, Down})
	base.Score = [2]uint32{2, 5}
	changes := map[string]func(*State){
		"Tick":       func(s *State) { s.Tick++ },
		"RNG":        func(s *State) { s.RNG++ },
		"Paddles[0]": func(s *State) { s.Paddles[0].Y++ },
		"Paddles[1]": func(s *State) { s.Paddles[1].Y++ },
		"Ball.X":     func(s *State) { s.Ball.X++ },
		"Ball.Y":     func(s *State) { s.Ball.Y++ },
		"Ball.VX":    func(s *State) { s.Ball.VX++ },
		"Ball.VY":    func(s *State) { s.Ball.VY++ },
		"Score[0]":   func(s *State) { s.Score[0]++ },
		"Score[1]":   func(s *State) { s.Score[1]++ },
		"Serve":      func(s *State) { s.Serve++ },
		"Hits":       func(s *State) { s.Hits++ },
		"swap":       func(s *State) { s.Score[0], s.Score[1] = s.Score[1], s.Score[0]+1 },
	}
	seen := map[uint64]string{base.Checksum(): "base"}
	for name, change := range changes {
		s := base
		change(&s)
		sum := s.Checksum()
		if other, ok := seen[sum]; ok {
			t.Errorf("changing %s gives the checksum of %s: %016x", name, other, sum)
		}
		seen[sum] = name
	}
}

// Inputs travel as one byte each; a byte off the network with other bits set is still an input.
func TestInputBytes(t *testing.T) {
	for _, in := range []Input{0, Up, Down, Up | Down} {
		var b [InputSize]byte
		in.Put(b[:])
		if got := Get(b[:]); got != in {
			t.Errorf("Put %d, Get %d", in, got)
		}
	}
	if got := Get([]byte{0xff}); got != Up|Down {
		t.Errorf("Get(0xff) = %d, want Up|Down", got)
	}
}

// A paddle stays on the field however long it is pushed.
func TestPaddleHeldToField(t *testing.T) {
	s := New(1)
	for range 100 {
		s.Step([2]Input{Up, Down})
	}
	if s.Paddles[0].Y != 0 || s.Paddles[1].Y != (Height-PaddleHeight)*Unit {
		t.Errorf("after 100 ticks up and down: paddles at %d and %d, want 0 and %d", s.Paddles[0].Y, s.Paddles[1].Y, (Height-PaddleHeight)*Unit)
	}
}

// A step, a bot's choice and a save (a copy) allocate nothing.
func TestZeroAllocs(t *testing.T) {
	s := New(1)
	bots := [2]Bot{NewBot(1), NewBot(2)}
	var saved State
	allocs := testing.AllocsPerRun(1000, func() {
		s.Step([2]Input{bots[0].Input(&s, 0), bots[1].Input(&s, 1)})
		saved = s
		_ = saved.Checksum()
	})
	if allocs != 0 {
		t.Errorf("%v allocations a tick, want 0", allocs)
	}
	var g Grid
	v := NewView(&g)
	st := Status{Ping: 23e6, Ahead: 0.5, Rollback: 2, Synced: 60, SyncSum: 0xabc, Message: "synchronized"}
	if allocs := testing.AllocsPerRun(100, func() { v.Draw(&s, &st) }); allocs != 0 {
		t.Errorf("%v allocations a frame, want 0", allocs)
	}
}

func TestView(t *testing.T) {
	s := New(1)
	s.Score = [2]uint32{3, 12}
	var g Grid
	st := Status{Player: 1, Ping: 23_400_000, Ahead: -1.25, Rollback: 3, Synced: 120, SyncSum: 0x9af3bc12d4e5f6a7, Message: "connected to 127.0.0.1:7000"}
	NewView(&g).Draw(&s, &st)
	if top := g.Line(0); !strings.HasPrefix(top, "┌─ duel 3 : 12 ─ w/s or arrows move, q quits ─") || !strings.HasSuffix(top, "┐") ||
		len([]rune(top)) != ViewWidth {
		t.Errorf("top border %q", top)
	}
	if want := "left"; strings.HasPrefix(g.Line(statusRow), want) {
		t.Errorf("status line %q: player 1 is on the right", g.Line(statusRow))
	}
	if got, want := g.Line(statusRow), "right ping 23ms ahead -1.2 rollback 3 tick 0 sync 120 9af3bc12d4e5f6a7"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	if got := g.Line(messageRow); got != st.Message {
		t.Errorf("message row %q, want %q", got, st.Message)
	}
	// The ball in the middle, the paddles in the middle of their columns.
	bx, by := s.Ball.Cell()
	if r := []rune(g.Line(1 + by)); len(r) <= 1+bx || r[1+bx] != '●' {
		t.Errorf("row %q: no ball at column %d", g.Line(1+by), 1+bx)
	}
	for y := 1; y <= Height; y++ {
		row := []rune(g.Line(y))
		on := y-1 >= (Height-PaddleHeight)/2 && y-1 < (Height+PaddleHeight)/2
		if (row[1+leftColumn] == '█') != on {
			t.Errorf("row %d %q: left paddle drawn %v, want %v", y, string(row), row[1+leftColumn] == '█', on)
		}
	}
}

func BenchmarkStep(b *testing.B) {
	s := New(1)
	bots := [2]Bot{NewBot(1), NewBot(2)}
	b.ReportAllocs()
	for b.Loop() {
		s.Step([2]Input{bots[0].Input(&s, 0), bots[1].Input(&s, 1)})
	}
}

// wideGrid is a Surface wider than the game that says its width, as a terminal does.
type wideGrid struct {
	rows [ViewHeight][]rune
}

const wideWidth = ViewWidth + 40

func (g *wideGrid) Size() (width, height int) { return wideWidth, ViewHeight }

func (g *wideGrid) SetCell(x, y int, r rune, _ tcell.Style) {
	if x < 0 || y < 0 || x >= wideWidth || y >= ViewHeight {
		return
	}
	if g.rows[y] == nil {
		g.rows[y] = []rune(strings.Repeat(" ", wideWidth))
	}
	g.rows[y][x] = r
}

// On a Surface wider than the game, the message row and the status line span its width: a
// message longer than ViewWidth is shown whole, and one shorter leaves no cell of a longer one
// before it. The field keeps its size. With no other peer, the status line shows no round trip
// and no ticks ahead.
func TestViewWide(t *testing.T) {
	s := New(1)
	var g wideGrid
	v := NewView(&g)
	long := "DESYNC: player 1: desync at tick 60: checksum 0xd551ba6ed2ef76ae here, 0xe960ae46c96bfbd6 there"
	st := Status{Ping: 23e6, Ahead: -39, NoPeer: true, Message: long}
	v.Draw(&s, &st)
	if got := strings.TrimRight(string(g.rows[messageRow]), " "); got != long {
		t.Errorf("message row %q, want %q", got, long)
	}
	if got, want := strings.TrimRight(string(g.rows[statusRow]), " "), "left ping - ahead - rollback 0 tick 0"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	st.Message = "short"
	v.Draw(&s, &st)
	if got := strings.TrimRight(string(g.rows[messageRow]), " "); got != "short" {
		t.Errorf("message row %q after a shorter message, want %q", got, "short")
	}
	if top := strings.TrimRight(string(g.rows[0]), " "); len([]rune(top)) != ViewWidth {
		t.Errorf("top border %q: %d cells, want %d", top, len([]rune(top)), ViewWidth)
	}
}

// A spectator's view: the border says it spectates, with no keys to move a paddle, and the
// status line says so, with the ticks behind in place of the ticks ahead and the rollback.
func TestViewSpectating(t *testing.T) {
	s := New(1)
	var g Grid
	v := NewView(&g)
	st := Status{Spectating: true, Ping: 231_000_000, Behind: 3, Ahead: 5, Rollback: 4, Synced: 1200, SyncSum: 0x9af3bc12d4e5f6a7}
	v.Draw(&s, &st)
	if top := g.Line(0); !strings.HasPrefix(top, "┌─ duel 0 : 0 ─ spectating, q quits ─") || len([]rune(top)) != ViewWidth {
		t.Errorf("top border %q", top)
	}
	if got, want := g.Line(statusRow), "spectating ping 231ms behind 3 tick 0 sync 1200 9af3bc12d4e5f6a7"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	st.NoPeer = true
	v.Draw(&s, &st)
	if got, want := g.Line(statusRow), "spectating ping - behind - tick 0 sync 1200 9af3bc12d4e5f6a7"; got != want {
		t.Errorf("status line %q with no host heard, want %q", got, want)
	}
	if allocs := testing.AllocsPerRun(100, func() { v.Draw(&s, &st) }); allocs != 0 {
		t.Errorf("%v allocations a frame, want 0", allocs)
	}
}
