package gameloop_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gameloop-go/gameloop"
)

func ExampleNew() {
	// The zero Config is valid: 60 ticks a second, no frame cap of the loop's own, headless,
	// on the system clock. Bad values are reported with the field's name.
	if _, err := gameloop.New(gameloop.Config{TickRate: -30}); err != nil {
		fmt.Println(err)
	}
	loop, err := gameloop.New(gameloop.Config{TickRate: 50, MaxFPS: 144})
	if err != nil {
		panic(err)
	}
	cfg := loop.Config()
	fmt.Println(cfg.TickRate, cfg.MaxFPS, cfg.MaxTicksPerFrame, cfg.MaxFrameTime)
	// Output:
	// gameloop: invalid Config.TickRate -30: must not be negative
	// 50 144 5 250ms
}

func ExampleLoop_Events() {
	// A ManualClock makes the example run instantly and print the same thing every time; a
	// real game leaves Clock nil.
	clock := gameloop.NewManualClock()
	loop, err := gameloop.New(gameloop.Config{TickRate: 10, MaxFPS: 20, Clock: clock})
	if err != nil {
		panic(err)
	}
	var x gameloop.InterpolatedFloat[float64]
	for ev := range loop.Events(context.Background()) {
		switch ev := ev.(type) {
		case *gameloop.Update:
			x.Set(x.Curr + 1) // one unit a tick
		case *gameloop.Render:
			fmt.Printf("%v: frame %d after tick %d, draw x at %.1f\n", clock.Now(), ev.Frame, ev.Tick, x.At(ev.Alpha))
		}
		if clock.Now() >= 200*time.Millisecond {
			break // the loop can be resumed later with another range over Events
		}
	}
	if err := loop.Err(); err != nil {
		panic(err)
	}
	// Output:
	// 0s: frame 1 after tick 0, draw x at 0.0
	// 50ms: frame 2 after tick 0, draw x at 0.0
	// 100ms: frame 3 after tick 1, draw x at 0.0
	// 150ms: frame 4 after tick 1, draw x at 0.5
}

// counter is a Game: Update is required; Render (and Input, VariableUpdate) are optional.
type counter struct{ ticks int }

func (c *counter) Update(u *gameloop.Update) error {
	c.ticks++
	if u.Tick == 120 {
		return gameloop.ErrStop // end the loop normally: Run returns nil
	}
	return nil
}

func (c *counter) Render(r *gameloop.Render) error {
	if r.Frame%30 == 0 {
		fmt.Printf("frame %d, tick %d\n", r.Frame, r.Tick)
	}
	return nil
}

func ExampleLoop_Run() {
	// Bench mode plays through on simulated time, as fast as the machine allows.
	loop, err := gameloop.New(gameloop.Config{TickRate: 60, MaxFPS: 30, Bench: true})
	if err != nil {
		panic(err)
	}
	game := &counter{}
	if err := loop.Run(context.Background(), game); err != nil {
		panic(err)
	}
	fmt.Println("ticks:", game.ticks)
	// Output:
	// frame 30, tick 58
	// frame 60, tick 118
	// ticks: 120
}

func ExampleLoop_Run_errors() {
	loop, err := gameloop.New(gameloop.Config{Bench: true})
	if err != nil {
		panic(err)
	}
	errNoSave := errors.New("no save file")
	err = loop.Run(context.Background(), gameloop.GameFunc(func(u *gameloop.Update) error {
		if u.Tick == 3 {
			return errNoSave
		}
		return nil
	}))
	fmt.Println(err)
	fmt.Println(errors.Is(err, errNoSave))
	// Output:
	// gameloop: Update at tick 3: no save file
	// true
}

func ExampleLoop_Pause() {
	clock := gameloop.NewManualClock()
	loop, err := gameloop.New(gameloop.Config{TickRate: 10, MaxFPS: 10, Clock: clock})
	if err != nil {
		panic(err)
	}
	for ev := range loop.Events(context.Background()) {
		switch ev := ev.(type) {
		case *gameloop.Update:
			fmt.Printf("%v: tick %d\n", clock.Now(), ev.Tick)
			if ev.Tick == 2 {
				loop.Pause() // frames go on; ticks wait
			}
		case *gameloop.Render:
			if ev.Frame == 6 {
				loop.Resume()
			}
		}
		if clock.Now() >= time.Second {
			break
		}
	}
	// Output:
	// 100ms: tick 1
	// 200ms: tick 2
	// 600ms: tick 3
	// 700ms: tick 4
	// 800ms: tick 5
	// 900ms: tick 6
	// 1s: tick 7
}

func ExampleInterpolated() {
	// Keep the previous and current state; Set once per update, draw At(alpha) per frame.
	pos := gameloop.NewInterpolated(gameloop.Vec2{X: 0, Y: 0})
	pos.Set(gameloop.Vec2{X: 10, Y: 4}) // after an update
	for _, alpha := range []float64{0, 0.25, 0.5, 1} {
		fmt.Println(alpha, pos.At(alpha))
	}
	// Output:
	// 0 {0 0}
	// 0.25 {2.5 1}
	// 0.5 {5 2}
	// 1 {10 4}
}

func ExampleSchedule() {
	// A host that owns the frame (requestAnimationFrame, another engine) hands the schedule the
	// time of each of its frames and runs the ticks owed.
	sched, err := gameloop.NewSchedule(gameloop.Config{TickRate: 60})
	if err != nil {
		panic(err)
	}
	for _, now := range []time.Duration{0, 20 * time.Millisecond, 55 * time.Millisecond, 400 * time.Millisecond} {
		st := sched.Advance(now)
		for range st.Ticks {
			sched.Next() // update the game here
		}
		fmt.Printf("%v: %d ticks (total %d), alpha %.2f, dropped %d\n", now, st.Ticks, sched.Ticks(), st.Alpha, st.DroppedTicks)
	}
	// Output:
	// 0s: 0 ticks (total 0), alpha 0.00, dropped 0
	// 20ms: 1 ticks (total 1), alpha 0.20, dropped 0
	// 55ms: 2 ticks (total 3), alpha 0.30, dropped 0
	// 400ms: 5 ticks (total 8), alpha 0.00, dropped 16
}
