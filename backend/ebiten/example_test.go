package ebiten_test

import (
	"fmt"
	"image/color"
	"log"
	"time"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
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
