// Command events prints the event sequence of a headless game loop: which inputs, updates and
// frames come, in which order, with which tick, Alpha and waits. It runs on simulated time, so
// it finishes at once and prints the same thing every time.
//
//	go run ./cmd/events -tps 10 -fps 25 -frames 8
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/gameloop-go/gameloop"
)

func main() {
	tps := flag.Int("tps", 10, "ticks (fixed updates) per second")
	fps := flag.Int("fps", 25, "frame cap, frames per second (0: one frame per tick)")
	frames := flag.Uint64("frames", 8, "stop after this many frames")
	flag.Parse()
	if err := run(*tps, *fps, *frames); err != nil {
		fmt.Fprintln(os.Stderr, "events:", err)
		os.Exit(1)
	}
}

func run(tps, fps int, frames uint64) error {
	clock := gameloop.NewManualClock()
	win := gameloop.NewHeadlessWindow(80, 24)
	loop, err := gameloop.New(gameloop.Config{TickRate: tps, MaxFPS: fps, Clock: clock, Window: win})
	if err != nil {
		return err
	}
	// A key press arrives 130 ms in: it is delivered before the next update.
	pressed := false
	for ev := range loop.Events(context.Background()) {
		fmt.Printf("%9v  %v\n", clock.Now(), ev)
		switch ev := ev.(type) {
		case *gameloop.Idle:
			if !pressed && clock.Now()+ev.Wait > 130e6 {
				clock.Set(130e6)
				win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
				pressed = true
			}
		case *gameloop.AfterRender:
			if ev.Frame >= frames {
				st := loop.Stats()
				fmt.Printf("\n%d ticks, %d frames in %v of simulated time\n", st.Ticks, st.Frames, clock.Now())
				return nil
			}
		}
	}
	return loop.Err()
}
