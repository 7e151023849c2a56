package ebiten

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
	"github.com/gameloop-go/gameloop/replay"
	ebiten "github.com/hajimehoshi/ebiten/v2"
)

// TestNil: a nil game, or a Game not made by New, is an error, where New accepted a nil game
// and the first frame panicked.
func TestNil(t *testing.T) {
	if _, err := New(nil, gameloop.Config{}); !errors.Is(err, gameloop.ErrNilGame) {
		t.Errorf("New(nil, ...) = %v, want an error wrapping gameloop.ErrNilGame", err)
	}
	if _, err := NewFunc(gameloop.Config{}, nil); err == nil {
		t.Error("NewFunc with a nil function accepted")
	}
	if _, err := NewFunc(gameloop.Config{}, func(*Game) gameloop.Game { return nil }); !errors.Is(err, gameloop.ErrNilGame) {
		t.Errorf("NewFunc whose function returns nil = %v, want an error wrapping gameloop.ErrNilGame", err)
	}
	if _, err := NewFunc(gameloop.Config{MaxFPS: 60}, func(*Game) gameloop.Game {
		t.Error("the function was called for a Config that is refused")
		return &logGame{}
	}); err == nil {
		t.Error("NewFunc accepted MaxFPS")
	}
	if err := Run(nil, nil); err == nil || !strings.HasPrefix(err.Error(), "ebiten: Run: ") {
		t.Errorf("Run(nil, nil) = %v, want an error", err)
	}
	if err := Run(&Game{}, nil); err == nil {
		t.Error("Run of a Game that New did not make: no error")
	}
	if err := (&Game{}).Update(); err == nil {
		t.Error("Update of a Game that New did not make: no error")
	}
}

// TestRecordedGameDraws: a game wrapped by a replay.Recorder, as docs/replay.md records one,
// draws with its Draw and sizes its screen with its Layout (the recorder's wrapper passed on
// neither, and nothing was drawn), while its input and ticks are recorded; the recording
// replays matched. TestRecordedInWindow shows it in a window.
func TestRecordedGameDraws(t *testing.T) {
	var recording bytes.Buffer
	rec, err := replay.NewRecorder(&recording, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &fixedLayout{}
	h := newHarness(t, rec.Game(g), gameloop.Config{TickRate: 60})
	if w, hh := h.a.Layout(1920, 1080); w != 320 || hh != 200 {
		t.Errorf("Layout: %dx%d, want the game's 320x200", w, hh)
	}
	for range 3 {
		if err := h.frame(frame60, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyX}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"Input{KeyPress X tick=1}", // the first frame runs no tick
		"draw frame=1 tick=0 alpha=0.06 320x200",
		"Input{KeyPress X tick=1}",
		"update 1",
		"draw frame=2 tick=1 alpha=0.06 320x200",
		"Input{KeyPress X tick=2}",
		"update 2",
		"draw frame=3 tick=2 alpha=0.06 320x200",
	}
	if got := strings.Join(g.log, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	replayed := &logGame{}
	res, err := replay.Play(context.Background(), &recording, replayed, nil)
	if err != nil || !res.Matched() || res.Ticks != 2 || res.Inputs != 3 {
		t.Errorf("replay: %v, %v; want 2 ticks and 3 inputs, matched", res, err)
	}
}

// buttons is the netplay test game's input: bit 0 moves a player's square down, bit 1 up.
type buttons uint8

type buttonsCodec struct{}

func (buttonsCodec) Size() int                 { return 1 }
func (buttonsCodec) Put(dst []byte, b buttons) { dst[0] = byte(b) }
func (buttonsCodec) Get(src []byte) buttons    { return buttons(src[0]) }

// squaresState is all of the netplay test game's state.
type squaresState struct {
	tick uint64
	y    [2]int64
}

// squares is a rollback-ready game that draws with Ebitengine (Drawer) and sets its screen's
// size (Layouter), as netplay.NewLoopGame wraps it.
type squares struct {
	squaresState
	slots []squaresState
	draws int
	size  string // the last frame's size, as Render gave it
}

func (g *squares) LocalInput(handle int) buttons {
	return buttons(1 + g.tick/uint64(20+10*handle)%2) // down, then up, and so on
}

func (g *squares) Step(tick uint64, inputs []netplay.PlayerInput[buttons]) error {
	g.tick = tick
	for h, in := range inputs {
		g.y[h] += int64(in.Input&1) - int64(in.Input>>1&1)
	}
	return nil
}

func (g *squares) checksum() uint64 {
	return g.tick*31 + uint64(g.y[0])*1_000_003 + uint64(g.y[1])
}

func (g *squares) Save(slot int) uint64 { g.slots[slot] = g.squaresState; return g.checksum() }
func (g *squares) Load(slot int)        { g.squaresState = g.slots[slot] }

func (g *squares) Draw(_ *ebiten.Image, r *gameloop.Render) error {
	g.draws++
	g.size = fmt.Sprintf("%dx%d", r.Width, r.Height)
	return nil
}

func (*squares) Layout(int, int) (int, int) { return 320, 200 }

// TestNetplay runs a netplay game inside two Games, one for each peer, made with NewFunc, which
// hands each to netplay.NewLoopGame as its loop: before it, the Game needed the game and the
// game the Game. The peers play over netsim's network on simulated time until tick 120 is final
// on both, and agree on its checksum; the game draws with its own Draw, at its Layout's size,
// through NewLoopGame's wrapper.
func TestNetplay(t *testing.T) {
	const last = 120
	network := netsim.NewNetwork(1)
	names := [2]string{"left", "right"}
	var conns [2]*netsim.Conn
	for i, name := range names {
		var err error
		if conns[i], err = network.Listen(name); err != nil {
			t.Fatal(err)
		}
	}
	var (
		sessions [2]*netplay.Session[buttons]
		games    [2]*squares
		peers    [2]*harness
	)
	for i := range peers {
		players := make([]netplay.Player, 2)
		players[i] = netplay.Player{Local: true}
		players[1-i] = netplay.Player{Addr: conns[1-i].LocalAddr()}
		s, err := netplay.NewSession(conns[i], netplay.Config[buttons]{Players: players, Codec: buttonsCodec{}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions[i], games[i] = s, &squares{slots: make([]squaresState, s.Slots())}
		clock := gameloop.NewManualClock()
		var given *Game
		a, err := NewFunc(gameloop.Config{TickRate: 60, Clock: clock}, func(loop *Game) gameloop.Game {
			given = loop
			return netplay.NewLoopGame(s, netplay.Game[buttons](games[i]), loop)
		})
		if err != nil {
			t.Fatal(err)
		}
		if given != a {
			t.Fatal("NewFunc handed the function another Game than it returned")
		}
		peers[i] = &harness{t: t, a: a, host: &fakeHost{}, clock: clock}
		a.host = peers[i].host
	}
	done := func(s *netplay.Session[buttons]) bool {
		st := s.Stats()
		return min(st.Confirmed, st.Tick) >= last
	}
	for frame := 0; !done(sessions[0]) || !done(sessions[1]); frame++ {
		if frame > 60*60 {
			t.Fatalf("tick %d not final on both after a minute of frames: %+v, %+v", last, sessions[0].Stats(), sessions[1].Stats())
		}
		network.Advance(frame60)
		for _, p := range peers {
			if err := p.frame(frame60); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("tick %d final on both after %d frames; %+v", last, peers[0].a.Stats().Frames, sessions[0].Stats())
	var sums [2]uint64
	for i, s := range sessions {
		sum, ok := s.Checksum(last)
		if !ok {
			t.Fatalf("peer %d holds no checksum of tick %d", i, last)
		}
		sums[i] = sum
	}
	if sums[0] != sums[1] {
		t.Errorf("tick %d: checksums %#x and %#x", last, sums[0], sums[1])
	}
	for i, g := range games {
		if g.draws == 0 || g.size != "320x200" {
			t.Errorf("peer %d: the game drew %d frames, the last at %s; want frames at 320x200", i, g.draws, g.size)
		}
	}
}
