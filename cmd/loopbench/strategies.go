package main

import (
	"context"
	"time"

	"github.com/gameloop-go/gameloop"
)

// A strategy runs frames until the recorder has enough, pacing them its own way. Each calls
// rec.frame at the start of every frame with the time it aimed that frame at, then does the
// frame's work with rec.work.
type strategy struct {
	name string
	doc  string
	run  func(rec *recorder) error
}

func strategies() []strategy {
	return []strategy{
		{"gameloop", "this library's Loop on the system clock, headless, TickRate = MaxFPS = hz", runGameloop},
		{"gpp-sleep", "Game Programming Patterns: sleep(start + MS_PER_FRAME - now)", runGPPSleep},
		{"lwjgl-sync", "the LWJGL book's sync(): 1 ms sleeps until the loop's slot ends", runLWJGLSync},
		{"piston", "Piston: sleep until the earlier of next frame (from the last render) and next update", runPiston},
		{"ticker", "a time.Ticker of the frame period", runTicker},
		{"busy-wait", "spin on the clock to each deadline of the absolute schedule", runBusyWait},
	}
}

// extraStrategies are run only when named with -strategies.
func extraStrategies() []strategy {
	return []strategy{
		{"pacer", "this library's Pacer alone on the absolute schedule, without the Loop", runPacer},
		{"gameloop-input", "gameloop's pacing with the coarse wait in Window.WaitInput", runPacerInput},
		{"gameloop-lowpower", "this library's Loop with Config.LowPower: one sleep to each deadline, no spin", runGameloopLowPower},
	}
}

// runGameloop drives the library's loop. Ticks and frames share one grid (TickRate = MaxFPS),
// so the loop waits once per frame. Frames are aimed at the slots of the loop's frame grid,
// which starts at its first frame; the grid's origin is read from the first Idle event, which
// says how long the loop means to wait for the second frame.
func runGameloop(rec *recorder) error {
	return runLoop(rec, gameloop.Config{TickRate: rec.hz, MaxFPS: rec.hz})
}

// runGameloopLowPower is runGameloop with the low-power pacer.
func runGameloopLowPower(rec *recorder) error {
	return runLoop(rec, gameloop.Config{TickRate: rec.hz, MaxFPS: rec.hz, LowPower: true})
}

// runLoop drives the library's loop with cfg, as runGameloop says.
func runLoop(rec *recorder, cfg gameloop.Config) error {
	loop, err := gameloop.New(cfg)
	if err != nil {
		return err
	}
	clock := loop.Clock()
	var epoch time.Duration
	known := false
	for ev := range loop.Events(context.Background()) {
		switch ev := ev.(type) {
		case *gameloop.Idle:
			if !known && len(rec.starts) > 0 {
				epoch, known = clock.Now()+ev.Wait-rec.slot(1), true
			}
		case *gameloop.VariableUpdate:
			now := clock.Now()
			aim := now
			if known {
				aim = epoch + rec.slotAtOrBefore(now-epoch)
			}
			if !rec.frame(now, aim) {
				if sc, ok := clock.(*gameloop.SystemClock); ok {
					rec.pacer = sc.Pacer().Stats()
				}
				return nil
			}
			rec.work()
		}
	}
	return loop.Err()
}

// runGPPSleep is Game Programming Patterns' "simple fix: wait": each frame sleeps for what is
// left of its period, counted from its own start, so every late wake-up pushes the rest back.
func runGPPSleep(rec *recorder) error {
	aim := rec.now()
	for {
		start := rec.now()
		if !rec.frame(start, aim) {
			return nil
		}
		rec.work()
		aim = start + rec.period
		time.Sleep(aim - rec.now())
	}
}

// runLWJGLSync is the LWJGL book's sync(): after the frame, sleep 1 ms at a time until the
// loop's slot, counted from the start of this iteration, has passed.
func runLWJGLSync(rec *recorder) error {
	aim := rec.now()
	for {
		loopStart := rec.now()
		if !rec.frame(loopStart, aim) {
			return nil
		}
		rec.work()
		aim = loopStart + rec.period
		for rec.now() < aim {
			time.Sleep(time.Millisecond)
		}
	}
}

// runPiston is Piston's event loop: updates on a fixed grid, the next frame one period after the
// last render, and a sleep until whichever comes first. Updates run at hz, like gameloop's.
func runPiston(rec *recorder) error {
	start := rec.now()
	lastFrame, lastUpdate := start-rec.period, start
	for {
		now := rec.now()
		nextFrame, nextUpdate := lastFrame+rec.period, lastUpdate+rec.period
		next := min(nextFrame, nextUpdate)
		switch {
		case next > now:
			time.Sleep(next - now)
		case next == nextFrame:
			if !rec.frame(now, nextFrame) {
				return nil
			}
			lastFrame = now
			rec.work()
		default:
			lastUpdate += rec.period
		}
	}
}

// runTicker waits on a time.Ticker. Its ticks fall on a grid that starts one period after the
// ticker is made; a tick that finds the channel full is dropped, so a frame is aimed at the
// last slot of that grid at or before it.
func runTicker(rec *recorder) error {
	epoch := rec.now() // before the ticker starts, so that no tick can seem to come early
	t := time.NewTicker(rec.period)
	defer t.Stop()
	for range t.C {
		now := rec.now()
		if !rec.frame(now, epoch+rec.slotAtOrBefore(now-epoch)) {
			return nil
		}
		rec.work()
	}
	return nil
}

// runBusyWait spins on the clock to each slot of the absolute schedule: the best timing there
// is, at the cost of a whole core.
func runBusyWait(rec *recorder) error {
	onGrid(rec, func(aim time.Duration) {
		for rec.now() < aim {
		}
	})
	return nil
}

// runPacer waits for each slot of the absolute schedule with a Pacer: gameloop without the
// Loop, to tell the pacer's precision from the loop's own overhead.
func runPacer(rec *recorder) error {
	pacer := gameloop.NewPacer(rec.now)
	onGrid(rec, func(aim time.Duration) { pacer.WaitUntil(aim, nil) })
	rec.pacer = pacer.Stats()
	return nil
}

// runPacerInput is runPacer with the coarse part of each wait spent in a window's WaitInput,
// as a driver that wants input to wake it would do; no input comes, so it shows what that
// costs in precision.
func runPacerInput(rec *recorder) error {
	pacer := gameloop.NewPacer(rec.now)
	win := gameloop.NewHeadlessWindow(0, 0)
	onGrid(rec, func(aim time.Duration) {
		if d := pacer.CoarseDeadline(aim) - rec.now(); d > 0 {
			win.WaitInput(d)
		}
		pacer.WaitUntil(aim, nil)
	})
	rec.pacer = pacer.Stats()
	return nil
}

// onGrid runs frames on the absolute schedule, each aimed at its slot and started once wait
// returns, until the recorder has enough. Far behind (the machine stalled), it resynchronises
// to the current slot instead of bursting.
func onGrid(rec *recorder, wait func(aim time.Duration)) {
	epoch := rec.now()
	for k := uint64(0); ; k++ {
		aim := epoch + rec.slot(k)
		wait(aim)
		now := rec.now()
		if now-aim > rec.period {
			k = uint64((now - epoch) / rec.period)
			aim = epoch + rec.slot(k)
		}
		if !rec.frame(now, aim) {
			return
		}
		rec.work()
	}
}
