// Command bench compares Ebitengine's own loop with gameloop inside Ebitengine on one small
// game: a square moving at constant speed, updated 20 times a second, drawn every frame. Each
// run is a process of its own (Ebitengine allows one game a process) that prints its figures as
// a line of JSON; the parent runs each loop -runs times, alternating, and prints the medians.
//
//	xvfb-run -a go run ./backend/ebiten/internal/bench -seconds 60 -runs 3
//
// For each loop: the CPU the process used (user and system, per cent of one core), how late
// updates ran against a grid of 1/20 s anchored at the first update (p50, p99), the frame rate,
// and smoothness: the steps between the square's positions in consecutive frames, their
// standard deviation over their mean (0 is perfectly even) and the share of frames that drew
// the same position as the one before. Ticks/due compares the updates run with those a grid of
// 1/20 s had due over the same time: equal when none was dropped or run twice. Each run has a
// second of warm-up first, left out of every figure but the CPU.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop"
	gle "github.com/gameloop-go/gameloop/backend/ebiten"
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
)

const (
	tickRate = 20
	speed    = 240.0 // pixels a second
)

// result is what one run measured.
type result struct {
	Loop      string
	CPU       float64 // per cent of one core
	LateP50   time.Duration
	LateP99   time.Duration
	FPS       float64
	StepCV    float64 // standard deviation of the drawn steps over their mean
	SameShare float64 // frames that drew the position of the frame before
	Ticks     uint64
	Due       uint64 // ticks the grid had due from the first update to the last
}

// probe records what a run needs: when updates ran, and where frames drew the square.
type probe struct {
	start time.Time
	ran   []time.Duration // when each update ran, since start
	drawn []float64
	warm  bool // the warm-up second is over: draws are recorded
	ticks uint64
	last  uint64        // the tick to stop after
	frame time.Duration // the emulated display's refresh period; 0 for none
}

func (p *probe) update() {
	p.ticks++
	if p.ticks > warmUpTicks {
		p.warm = true
		p.ran = append(p.ran, time.Since(p.start))
	}
}

// warmUpTicks are left out of the figures: the first second, when Ebitengine compiles its
// shaders and the window appears.
const warmUpTicks = tickRate

// draw draws the square at x, then waits for the emulated display's next refresh, as a swap
// with v-sync would (Xvfb has none).
func (p *probe) draw(screen *ebiten.Image, x float64) {
	if p.warm {
		p.drawn = append(p.drawn, x)
	}
	vector.DrawFilledRect(screen, float32(math.Mod(x, 320)), 100, 16, 16, color.White, false)
	if p.frame > 0 {
		now := time.Since(p.start)
		time.Sleep((now/p.frame+1)*p.frame - now)
	}
}

// lateness returns how late each update ran against the grid of 1/tickRate fitted to the
// earliest (the grid through the update that ran earliest against it), and how many updates
// that grid had due from its first to the last update's time: as many as ran when no update
// was dropped and none run twice.
func lateness(ran []time.Duration) (late []time.Duration, due uint64) {
	const step = time.Second / tickRate
	origin := time.Duration(math.MaxInt64)
	for k, t := range ran {
		origin = min(origin, t-time.Duration(k)*step)
	}
	late = make([]time.Duration, len(ran))
	for k, t := range ran {
		late[k] = t - origin - time.Duration(k)*step
	}
	return late, uint64((ran[len(ran)-1]-origin)/step) + 1
}

// own is the game on Ebitengine's loop: Update at TPS 20, Draw every frame.
type own struct {
	p *probe
	x float64
}

func (g *own) Update() error {
	if g.p.ticks == g.p.last {
		return ebiten.Termination
	}
	g.p.update()
	g.x += speed / tickRate
	return nil
}

func (g *own) Draw(screen *ebiten.Image) { g.p.draw(screen, g.x) }

func (*own) Layout(int, int) (int, int) { return 320, 240 }

// looped is the same game on gameloop inside Ebitengine, drawn interpolated.
type looped struct {
	p *probe
	x gameloop.InterpolatedFloat[float64]
}

func (g *looped) Update(u *gameloop.Update) error {
	if g.p.ticks == g.p.last {
		return gameloop.ErrStop
	}
	g.p.update()
	g.x.Set(g.x.Curr + speed*u.Seconds)
	return nil
}

func (g *looped) Draw(screen *ebiten.Image, r *gameloop.Render) error {
	g.p.draw(screen, g.x.At(r.Alpha))
	return nil
}

func (*looped) Layout(int, int) (int, int) { return 320, 240 }

func main() {
	seconds := flag.Float64("seconds", 10, "length of each run")
	runs := flag.Int("runs", 3, "runs of each loop; the medians are printed")
	fps := flag.Int("fps", 60, "the emulated display's refresh rate: Draw waits for its next refresh (0: none)")
	child := flag.String("child", "", "run one loop, own or gameloop, and print its figures (used by the parent)")
	flag.Parse()
	if *child != "" {
		if err := runChild(*child, *seconds, *fps); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := runParent(*seconds, *runs, *fps); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func runChild(loop string, seconds float64, fps int) error {
	p := &probe{start: time.Now(), last: warmUpTicks + uint64(math.Round(seconds*tickRate))}
	if fps > 0 {
		p.frame = time.Second / time.Duration(fps)
	}
	p.ran = make([]time.Duration, 0, p.last)
	p.drawn = make([]float64, 0, 1000*int(seconds+1))
	ebiten.SetWindowSize(320, 240)
	var err error
	switch loop {
	case "own":
		ebiten.SetTPS(tickRate)
		err = ebiten.RunGame(&own{p: p})
	case "gameloop":
		var g *gle.Game
		if g, err = gle.New(&looped{p: p}, gameloop.Config{TickRate: tickRate}); err == nil {
			err = gle.Run(g, nil)
		}
	default:
		return fmt.Errorf("-child %q: want own or gameloop", loop)
	}
	if err != nil {
		return err
	}
	wall := time.Since(p.start)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r := result{Loop: loop, CPU: 100 * cpu.Seconds() / wall.Seconds(), Ticks: uint64(len(p.ran))}
	late, due := lateness(p.ran)
	r.Due = due
	slices.Sort(late)
	r.LateP50, r.LateP99 = late[len(late)/2], late[len(late)*99/100]
	r.FPS = float64(len(p.drawn)) / (p.ran[len(p.ran)-1] - p.ran[0]).Seconds()
	r.StepCV, r.SameShare = steps(p.drawn)
	return json.NewEncoder(os.Stdout).Encode(r)
}

// steps returns the spread of the steps between consecutive drawn positions (their standard
// deviation over their mean) and the share of them that are zero.
func steps(drawn []float64) (cv, same float64) {
	var sum, sumSq float64
	var zero int
	n := len(drawn) - 1
	for i := 1; i < len(drawn); i++ {
		d := drawn[i] - drawn[i-1]
		sum += d
		sumSq += d * d
		if d == 0 {
			zero++
		}
	}
	if n <= 0 || sum == 0 {
		return math.NaN(), math.NaN()
	}
	mean := sum / float64(n)
	return math.Sqrt(max(sumSq/float64(n)-mean*mean, 0)) / mean, float64(zero) / float64(n)
}

func runParent(seconds float64, runs, fps int) error {
	if runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	all := map[string][]result{}
	for range runs {
		for _, loop := range []string{"own", "gameloop"} {
			out, err := exec.Command(self, "-child", loop, "-seconds", fmt.Sprint(seconds), "-fps", fmt.Sprint(fps)).Output()
			if err != nil {
				return fmt.Errorf("%s: %w", loop, err)
			}
			var r result
			if err := json.Unmarshal(out, &r); err != nil {
				return fmt.Errorf("%s printed %q: %w", loop, out, err)
			}
			all[loop] = append(all[loop], r)
		}
	}
	fmt.Printf("%d ticks/s for %gs, a display of %d Hz emulated, medians of %d runs\n", tickRate, seconds, fps, runs)
	fmt.Printf("%-9s %7s %10s %10s %6s %8s %6s %11s\n", "loop", "CPU %", "late p50", "late p99", "FPS", "step cv", "same", "ticks/due")
	for _, loop := range []string{"own", "gameloop"} {
		rs := all[loop]
		med := func(f func(r result) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			slices.Sort(v)
			return v[len(v)/2]
		}
		fmt.Printf("%-9s %7.1f %10v %10v %6.1f %8.3f %5.0f%% %5.0f/%-5.0f\n", loop,
			med(func(r result) float64 { return r.CPU }),
			time.Duration(med(func(r result) float64 { return float64(r.LateP50) })).Round(time.Microsecond),
			time.Duration(med(func(r result) float64 { return float64(r.LateP99) })).Round(time.Microsecond),
			med(func(r result) float64 { return r.FPS }),
			med(func(r result) float64 { return r.StepCV }),
			100*med(func(r result) float64 { return r.SameShare }),
			med(func(r result) float64 { return float64(r.Ticks) }),
			med(func(r result) float64 { return float64(r.Due) }))
	}
	return nil
}
