package web

import (
	"math"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
)

// A page whose first frame's time is near the most negative time still ticks: game time starts
// a little before the first frame without the subtraction wrapping around to a time that never
// comes.
func TestFirstFrameNearMinInt64(t *testing.T) {
	for _, first := range []time.Duration{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + time.Millisecond/2} {
		d := newDriver(t, gameloop.Config{TickRate: 60})
		var perFrame []int
		g := &countGame{perFrame: &perFrame}
		for n := range int64(61) {
			if err := d.Frame(g, first+time.Duration(n*int64(time.Second)/60), 800, 600); err != nil {
				t.Fatal(err)
			}
		}
		if st := d.Stats(); st.Ticks < 59 {
			t.Errorf("first frame at %d: %d ticks in a second at 60 Hz", int64(first), st.Ticks)
		}
	}
}

// Lowering the time scale keeps the ticks owed for the time before the change: 50 ms at 60 Hz
// are 3 ticks, at scale 0.1 or 0 as at 1.
func TestTimeScaleChangeKeepsOwedTicks(t *testing.T) {
	for _, scale := range []float64{0.1, 0} {
		d := newDriver(t, gameloop.Config{TickRate: 60, MaxFrameTime: math.MaxInt64})
		var perFrame []int
		g := &countGame{perFrame: &perFrame}
		if err := d.Frame(g, time.Second, 800, 600); err != nil {
			t.Fatal(err)
		}
		if err := d.SetTimeScale(scale); err != nil {
			t.Fatal(err)
		}
		if err := d.Frame(g, time.Second+50*time.Millisecond, 800, 600); err != nil {
			t.Fatal(err)
		}
		if got := perFrame[len(perFrame)-1]; got != 3 {
			t.Errorf("50 ms owed at 60 Hz, then scale %v: %d ticks, want 3", scale, got)
		}
	}
}
