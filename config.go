package gameloop

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Defaults for the zero fields of a Config.
const (
	// DefaultTickRate is the number of fixed updates per second when Config.TickRate is 0.
	DefaultTickRate = 60
	// DefaultMaxTicksPerFrame bounds catch-up when Config.MaxTicksPerFrame is 0: at most this many
	// updates run back to back before a frame is drawn; the rest are dropped.
	DefaultMaxTicksPerFrame = 5
	// DefaultMaxFrameTime is the most real time one frame may account for when
	// Config.MaxFrameTime is 0. A quarter of a second is the bound Glenn Fiedler's
	// "Fix Your Timestep!" uses, and it keeps a clock jump from being replayed as a burst.
	DefaultMaxFrameTime = 250 * time.Millisecond
	// DefaultFrameTimeSamples is how many recent frame times Stats takes its percentiles over
	// when Config.FrameTimeSamples is 0.
	DefaultFrameTimeSamples = 240
)

// Limits on Config values, beyond which the schedule's integer arithmetic stops being exact or
// the value makes no sense for a game loop.
const (
	// MaxRate is the largest TickRate or MaxFPS accepted: one event per microsecond.
	MaxRate = 1_000_000
	// MaxFrameTimeSamples is the largest FrameTimeSamples accepted.
	MaxFrameTimeSamples = 1 << 16
)

// Config describes a loop. The zero value is a valid configuration: 60 ticks per second, frames
// not capped by the loop, headless, on the system's monotonic clock. Every field is documented
// with its default; New reports a bad value with an error that names the field.
type Config struct {
	// TickRate is the number of fixed updates per second. Tick n (counting from 1) is due
	// exactly n/TickRate seconds of game time after the loop starts. 0 means DefaultTickRate.
	TickRate int

	// MaxFPS caps the frame rate. Frames are due on an absolute grid, one every 1/MaxFPS s.
	// 0 means the loop sets no cap of its own: with a window, a frame is drawn on every pass of
	// the loop in which time advanced, and the window's buffer swap (v-sync) paces it; headless,
	// a frame follows every pass that ran at least one tick.
	MaxFPS int

	// MaxTicksPerFrame is the most updates run back to back before a frame is drawn. When more
	// are owed (a slow update, a stall), the excess is dropped, never replayed later, and
	// counted in Stats. This is the guard against the spiral of death. 0 means
	// DefaultMaxTicksPerFrame.
	MaxTicksPerFrame int

	// MaxFrameTime is the most real time one pass of the loop may account for. Beyond it (a
	// laptop that slept, a debugger breakpoint) time is dropped. It is never taken as less than
	// one tick's step, so that a low tick rate still ticks. 0 means DefaultMaxFrameTime;
	// math.MaxInt64 means no bound (catch-up is then bounded by MaxTicksPerFrame alone).
	MaxFrameTime time.Duration

	// TimeScale is how fast game time runs against real time: 0.5 gives half as many ticks per
	// real second, each with the same step. 0 means 1; at most 10^6. Use Pause to stop time.
	// The scale is applied exactly, as the binary fraction the float64 holds.
	TimeScale float64

	// Lazy makes the loop wait for input: no tick runs and no frame is drawn until input
	// arrives; then the input is delivered, one tick runs and one frame is drawn. This is
	// Piston's lazy mode, for tools and editors that only change when the user acts.
	Lazy bool

	// Bench makes the loop never sleep: it plays through as fast as it can on simulated time,
	// which jumps to each deadline instead of waiting for it (Piston's bench mode). Replays and
	// benchmarks use it. Clock must then be nil or a *ManualClock.
	Bench bool

	// Clock is the time source. nil means the system's monotonic clock (or, with Bench, a
	// simulated clock starting at 0).
	Clock Clock

	// LowPower makes the system clock wait for each deadline with one sleep and no spin
	// (NewLowPowerClock): a frame starts later, tens to hundreds of µs on a virtual machine,
	// at a fraction of the CPU the default pacer's spin costs (docs/pacing.md). Choose it
	// where a frame's start need not be exact to microseconds: a game on battery, a server, a
	// netplay peer that shares its core. It cannot be combined with Clock (which paces itself)
	// or Bench (which never waits).
	LowPower bool

	// Window is where input comes from and frames go. nil means headless: no input, and Render
	// events with zero width and height.
	Window Window

	// NoFrames makes the loop draw no frames: it delivers Input, Update and Idle only, waits
	// for the next tick alone, and its Stats count no frames. A headless loop otherwise
	// delivers a VariableUpdate, a Render (0x0) and an AfterRender after every pass that
	// ticked; a game server's match, which draws nothing, is spared them (as a Pool's matches
	// are). A Window, if there is one, is still polled for input and asked whether to close,
	// but never drawn to. It cannot be combined with MaxFPS or Lazy.
	NoFrames bool

	// FrameTimeSamples is how many of the most recent frame times Stats computes its
	// percentiles over. 0 means DefaultFrameTimeSamples.
	FrameTimeSamples int
}

// ConfigError reports a bad setting: a Config field, or the value given to the method that
// changes that setting while the loop runs (SetTickRate, SetTimeScale, SetMaxFPS).
type ConfigError struct {
	Field  string // the setting's Config field, such as "TickRate"
	Value  any    // the value it had
	Reason string // what is wrong with it
	// Setter is the method that was given the value, such as "SetTickRate", or "" when it
	// came in a Config.
	Setter string
}

func (e *ConfigError) Error() string {
	if e.Setter != "" {
		return fmt.Sprintf("gameloop: invalid %s(%v): %s", e.Setter, e.Value, e.Reason)
	}
	return fmt.Sprintf("gameloop: invalid Config.%s %v: %s", e.Field, e.Value, e.Reason)
}

// badField returns the error for a bad value of a Config field.
func badField(field string, value any, reason string) *ConfigError {
	return &ConfigError{Field: field, Value: value, Reason: reason}
}

// inSetter marks err, a *ConfigError if not nil, as the argument of the method setter.
func inSetter(setter string, err error) error {
	var ce *ConfigError
	if errors.As(err, &ce) {
		ce.Setter = setter
	}
	return err
}

// withDefaults returns c with its zero fields filled in and validates it.
func (c Config) withDefaults() (Config, error) {
	if err := c.validate(); err != nil {
		return c, err
	}
	if c.TickRate == 0 {
		c.TickRate = DefaultTickRate
	}
	if c.MaxTicksPerFrame == 0 {
		c.MaxTicksPerFrame = DefaultMaxTicksPerFrame
	}
	if c.MaxFrameTime == 0 {
		c.MaxFrameTime = DefaultMaxFrameTime
	}
	if c.TimeScale == 0 {
		c.TimeScale = 1
	}
	if c.FrameTimeSamples == 0 {
		c.FrameTimeSamples = DefaultFrameTimeSamples
	}
	return c, nil
}

func (c Config) validate() error {
	if err := checkRate("TickRate", c.TickRate); err != nil {
		return err
	}
	if err := checkRate("MaxFPS", c.MaxFPS); err != nil {
		return err
	}
	if c.MaxTicksPerFrame < 0 {
		return badField("MaxTicksPerFrame", c.MaxTicksPerFrame, "must not be negative (0 means the default)")
	}
	if c.MaxFrameTime < 0 {
		return badField("MaxFrameTime", c.MaxFrameTime, "must not be negative (0 means the default)")
	}
	if err := checkScale("TimeScale", c.TimeScale); err != nil {
		return err
	}
	if c.FrameTimeSamples < 0 || c.FrameTimeSamples > MaxFrameTimeSamples {
		return badField("FrameTimeSamples", c.FrameTimeSamples,
			fmt.Sprintf("must be between 0 (the default) and %d", MaxFrameTimeSamples))
	}
	if c.LowPower && c.Bench {
		return badField("LowPower", c.LowPower, "cannot be combined with Bench: a bench loop never waits")
	}
	if c.LowPower && c.Clock != nil {
		return badField("LowPower", c.LowPower, "cannot be combined with Clock: it chooses the system clock's pacing, and a Clock paces itself")
	}
	if c.Lazy && c.Bench {
		return badField("Lazy", c.Lazy, "cannot be combined with Bench: a lazy loop waits for input, a bench loop never waits")
	}
	if c.NoFrames {
		switch {
		case c.MaxFPS != 0:
			return badField("NoFrames", c.NoFrames, fmt.Sprintf("cannot be combined with MaxFPS %d: a loop without frames has no frame rate", c.MaxFPS))
		case c.Lazy:
			return badField("NoFrames", c.NoFrames, "cannot be combined with Lazy: a lazy loop's turn (input, a tick, a frame) ends with its frame")
		}
	}
	if c.Bench && c.Clock != nil {
		if _, ok := c.Clock.(*ManualClock); !ok {
			return badField("Clock", fmt.Sprintf("%T", c.Clock), "with Bench, must be nil or a *ManualClock: bench mode jumps the clock to each deadline")
		}
	}
	return nil
}

func checkRate(field string, rate int) error {
	if rate < 0 {
		return badField(field, rate, "must not be negative")
	}
	if rate > MaxRate {
		return badField(field, rate, fmt.Sprintf("must be at most %d per second", MaxRate))
	}
	return nil
}

// maxTimeScale keeps scaled durations far inside int64 nanoseconds.
const maxTimeScale = 1e6

func checkScale(field string, scale float64) error {
	switch {
	case math.IsNaN(scale):
		return badField(field, scale, "must be a number")
	case scale < 0:
		return badField(field, scale, "must not be negative")
	case scale > maxTimeScale:
		return badField(field, scale, fmt.Sprintf("must be at most %g", float64(maxTimeScale)))
	}
	return nil
}
