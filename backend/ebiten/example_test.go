package ebiten_test

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"log"
	"net"
	"os"
	"time"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/replay"
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
)

// slide is a square sliding across the screen at 200 pixels a second, updated 20 times a
// second and drawn at the display's rate, interpolated.
type slide struct {
	x gameloop.InterpolatedFloat[float64]
}

func (s *slide) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyEscape {
		return gameloop.ErrStop
	}
	return nil
}

func (s *slide) Update(u *gameloop.Update) error {
	next := s.x.Curr + 200*u.Seconds
	if next > 640 {
		s.x.Reset(0) // no interpolation across the jump back
		return nil
	}
	s.x.Set(next)
	return nil
}

func (s *slide) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	x := s.x.At(r.Alpha)
	vector.DrawFilledRect(screen, float32(x), 100, 20, 20, color.White, false)
	return nil
}

// A whole program: Ebitengine's window, gameloop's fixed steps. Escape or the close button
// ends it.
func Example() {
	g, err := gle.New(&slide{}, gameloop.Config{TickRate: 20})
	if err != nil {
		log.Fatal(err)
	}
	ebiten.SetWindowTitle("slide")
	if err := gle.Run(g, nil); err != nil {
		log.Fatal(err)
	}
}

// counter prints what Ebitengine's frames run.
type counter struct{ ticks int }

func (c *counter) Update(*gameloop.Update) error { c.ticks++; return nil }

func (c *counter) Draw(_ *ebiten.Image, r *gameloop.Render) error {
	fmt.Printf("frame %d: %d ticks so far, alpha %.2f\n", r.Frame, c.ticks, r.Alpha)
	return nil
}

// What Ebitengine's frames run, on a clock the example moves itself: a 20 Hz game on a 60 Hz
// display ticks every third frame, and the frames between are drawn a third and two thirds of
// the way to the next tick. (Ebitengine calls Layout, Update and Draw; here the example does.)
func Example_frames() {
	clock := gameloop.NewManualClock()
	g, err := gle.New(&counter{}, gameloop.Config{TickRate: 20, Clock: clock})
	if err != nil {
		log.Fatal(err)
	}
	for range 6 {
		clock.Advance(time.Second / 60)
		g.Layout(640, 480)
		if err := g.Update(); err != nil {
			log.Fatal(err)
		}
		g.Draw(nil)
	}
	// Output:
	// frame 1: 0 ticks so far, alpha 0.02
	// frame 2: 0 ticks so far, alpha 0.35
	// frame 3: 0 ticks so far, alpha 0.69
	// frame 4: 1 ticks so far, alpha 0.02
	// frame 5: 1 ticks so far, alpha 0.35
	// frame 6: 1 ticks so far, alpha 0.69
}

// record plays square in Ebitengine's window and records it to f, as docs/replay.md shows.
func record(f io.Writer, square gameloop.Game) error {
	rec, err := replay.NewRecorder(f, 20, &replay.RecordOptions{Name: "square"})
	if err != nil {
		return err
	}
	g, err := gle.New(rec.Game(square), gameloop.Config{TickRate: 20}) // draws with square's Draw
	if err != nil {
		return errors.Join(err, rec.Close())
	}
	return errors.Join(gle.Run(g, nil), rec.Close())
}

// A game recorded in Ebitengine's window: the recorder's wrapper is a gameloop.Wrapper, through
// which the adapter finds the game's Draw (and Layout, if it had one). square.rec replays
// headless with replay.Play.
func Example_record() {
	f, err := os.Create("square.rec")
	if err != nil {
		log.Fatal(err)
	}
	if err := errors.Join(record(f, &slide{}), f.Close()); err != nil {
		log.Fatal(err)
	}
}

// tickRate is the netplay example's tick rate.
const tickRate = 60

// moves is a netplay game: each player's input moves its square, one step a tick.
type moves struct {
	y     [2]int64
	slots [][2]int64
}

func (m *moves) LocalInput(int) int8 { return 1 }

func (m *moves) Step(_ uint64, inputs []netplay.PlayerInput[int8]) error {
	for h, in := range inputs {
		m.y[h] += int64(in.Input)
	}
	return nil
}

func (m *moves) Save(slot int) uint64 {
	m.slots[slot] = m.y
	return uint64(m.y[0])<<32 ^ uint64(m.y[1])
}
func (m *moves) Load(slot int) { m.y = m.slots[slot] }

// Draw draws both squares; the adapter finds it through netplay.NewLoopGame's game.
func (m *moves) Draw(screen *ebiten.Image, _ *gameloop.Render) error {
	for h, y := range m.y {
		vector.DrawFilledRect(screen, float32(100+100*h), float32(y%240), 20, 20, color.White, false)
	}
	return nil
}

// int8Codec encodes an int8 in a byte.
type int8Codec struct{}

func (int8Codec) Size() int               { return 1 }
func (int8Codec) Put(dst []byte, in int8) { dst[0] = byte(in) }
func (int8Codec) Get(src []byte) int8     { return int8(src[0]) }

// A netplay game in Ebitengine's window, against a peer at 127.0.0.1:7000: NewLoopGame needs
// the adapter as its loop, and NewFunc hands it the adapter before the adapter takes the game.
// docs/ebiten.md has a whole program, with both peers.
func ExampleNewFunc() {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	other, err := net.ResolveUDPAddr("udp", "127.0.0.1:7000")
	if err != nil {
		log.Fatal(err)
	}
	session, err := netplay.NewSession(conn, netplay.Config[int8]{
		Players: []netplay.Player{{Local: true}, {Addr: other}}, Codec: int8Codec{}, TickRate: tickRate,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	game := &moves{slots: make([][2]int64, session.Slots())}
	g, err := gle.NewFunc(gameloop.Config{TickRate: tickRate}, func(loop *gle.Game) gameloop.Game {
		return netplay.NewLoopGame(session, game, loop)
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := gle.Run(g, nil); err != nil {
		log.Fatal(err)
	}
}
