package netplay

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
)

// stopAt is the test game, ending the loop once its session has run a tick.
type stopAt struct {
	*testGame
	last uint64
}

func (g *stopAt) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	if err := g.testGame.Step(tick, inputs); err != nil {
		return err
	}
	if tick >= g.last {
		return gameloop.ErrStop
	}
	return nil
}

// TestLoopGame runs two real loops on the system clock, at 240 Hz, each with its session over
// UDP on 127.0.0.1 through NewLoopGame, until each has run 480 ticks, and checks that they
// played the same game.
func TestLoopGame(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two seconds in real time")
	}
	const rate, ticks = 240, 480
	var conns [2]net.PacketConn
	for i := range conns {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	var games [2]*stopAt
	var sessions [2]*Session[testInput]
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for h := range 2 {
		players := make([]Player, 2)
		players[h] = Player{Local: true}
		players[1-h] = Player{Addr: conns[1-h].LocalAddr()}
		s, err := NewSession(conns[h], Config[testInput]{Players: players, Codec: byteCodec{}, TickRate: rate})
		if err != nil {
			t.Fatal(err)
		}
		sessions[h] = s
		defer s.Close()
		loop, err := gameloop.New(gameloop.Config{TickRate: rate, NoFrames: true})
		if err != nil {
			t.Fatal(err)
		}
		games[h] = &stopAt{testGame: newTestGame(2, s.Slots(), uint64(h), 2*ticks), last: ticks}
		games[h].session = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			errs[h] = loop.Run(ctx, NewLoopGame(s, Game[testInput](games[h]), loop))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	common := min(sessions[0].final, sessions[1].final)
	// Each stops at its tick 480, the other perhaps some ticks behind it (a loaded machine):
	// the ticks both hold as final are compared.
	if common < ticks/2 {
		t.Fatalf("only %d ticks final", common)
	}
	for tick := uint64(1); tick <= common; tick++ {
		if games[0].sums[tick-1] != games[1].sums[tick-1] {
			t.Fatalf("tick %d: checksums %#x and %#x", tick, games[0].sums[tick-1], games[1].sums[tick-1])
		}
	}
	t.Logf("%d ticks in sync; %+v", common, sessions[0].Stats())
}

// drawnGame is the test game with the loop's other callbacks, counting their calls.
type drawnGame struct {
	*testGame
	inputs, variables, renders int
}

func (g *drawnGame) Input(*gameloop.Input) error                   { g.inputs++; return nil }
func (g *drawnGame) VariableUpdate(*gameloop.VariableUpdate) error { g.variables++; return nil }
func (g *drawnGame) Render(*gameloop.Render) error                 { g.renders++; return nil }

// TestLoopGamePassesThrough: the game NewLoopGame returns hands the loop's input events,
// variable updates and frames to a game that takes them (it handed them to none before: the
// game got no keys and drew nothing), and ignores them for one that does not.
func TestLoopGamePassesThrough(t *testing.T) {
	p := newPair(t, 0)
	var clock simClock
	g := &drawnGame{testGame: p.games[0]}
	lg := NewLoopGame(p.sessions[0], Game[testInput](g), &clock)
	in, ok := lg.(gameloop.InputHandler)
	v, ok2 := lg.(gameloop.VariableUpdater)
	r, ok3 := lg.(gameloop.Renderer)
	if !ok || !ok2 || !ok3 {
		t.Fatal("the loop game lacks Input, VariableUpdate or Render")
	}
	for range 3 {
		if err := errors.Join(in.Input(&gameloop.Input{}), v.VariableUpdate(&gameloop.VariableUpdate{}), r.Render(&gameloop.Render{})); err != nil {
			t.Fatal(err)
		}
	}
	if g.inputs != 3 || g.variables != 3 || g.renders != 3 {
		t.Errorf("the game got %d inputs, %d variable updates and %d frames of 3", g.inputs, g.variables, g.renders)
	}
	plain := NewLoopGame(p.sessions[1], Game[testInput](p.games[1]), &clock)
	if err := plain.(gameloop.Renderer).Render(&gameloop.Render{}); err != nil {
		t.Errorf("Render of a game that does not draw: %v", err)
	}
}

// TestLoopGameUnwraps: the game NewLoopGame returns is a gameloop.Wrapper of the netplay game,
// so that a backend finds what the game implements besides the loop's callbacks (inside
// Ebitengine, its Draw and Layout: backend/ebiten's TestNetplayDraws).
func TestLoopGameUnwraps(t *testing.T) {
	p := newPair(t, 0)
	var clock simClock
	g := &drawnGame{testGame: p.games[0]}
	lg := NewLoopGame(p.sessions[0], Game[testInput](g), &clock)
	if w, ok := lg.(gameloop.Wrapper); !ok || w.Unwrap() != g {
		t.Fatalf("the loop game %T is not a gameloop.Wrapper of the game", lg)
	}
	if found, ok := gameloop.As[*drawnGame](lg); !ok || found != g {
		t.Errorf("gameloop.As found %v, %v; want the game", found, ok)
	}
}

// TestLoopGameNil: a nil session, game or loop is an error of the first Update, which names it,
// where the Update panicked.
func TestLoopGameNil(t *testing.T) {
	p := newPair(t, 0)
	var clock simClock
	for _, tc := range []struct {
		name string
		lg   gameloop.Game
	}{
		{"*Session", NewLoopGame(nil, Game[testInput](p.games[0]), &clock)},
		{"Game", NewLoopGame(p.sessions[0], nil, &clock)},
		{"Loop", NewLoopGame(p.sessions[0], Game[testInput](p.games[0]), nil)},
	} {
		err := tc.lg.Update(&gameloop.Update{Tick: 1})
		if err == nil || !strings.Contains(err.Error(), "the "+tc.name+" is nil") {
			t.Errorf("Update with a nil %s: %v", tc.name, err)
		}
	}
}
