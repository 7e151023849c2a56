// Package gameloop is a game loop: it runs a game's simulation in fixed steps at an exact rate,
// draws frames as often as the screen allows, interpolates between the two, and waits for each
// deadline precisely at little CPU cost.
//
// # What a game loop is
//
// A game keeps moving while the player does nothing, so its loop cannot wait for input the way
// an editor's does: it polls input, advances the simulation, draws, and waits for the next
// deadline. The simulation advances in fixed steps (ticks), because a fixed step makes it
// deterministic, the same input giving the same result at 30 or 240 frames per second, and
// keeps physics stable. Frames are drawn at their own rate; a frame that falls between two
// ticks blends the last two states by Alpha, the fraction of the next step already elapsed.
// When the machine cannot keep up, a bounded number of ticks run back to back and the rest is
// dropped, so that a slow frame cannot cause more work in the next one (the spiral of death).
//
// One pass of the loop:
//
//	          now                                                     next deadline
//	───────────┼──────────────────────────────────────────────────────────────┼──────▶ real time
//	           │ Input… │ Update Update … │ VariableUpdate │ Render │ swap │ AfterRender │ Idle │ wait
//	           │  every │ the ticks owed, │  once per frame: camera,│      │             │      │
//	           │  input │ at most         │  particles, blending    │      │             │      │
//	           │  first │ MaxTicksPerFrame│                         │      │             │      │
//
// # Which API to use
//
//   - Loop.Events: pull events with a for range, Piston's design. The loop is an object you can
//     leave with break and resume from another function, so each scene can own its assets.
//   - Loop.Run: hand the loop a Game (Update, and optionally Input, VariableUpdate and Render),
//     the LWJGL book's design; errors and panics come back wrapped with the tick or frame.
//   - Schedule: only the decisions, for a host that owns the frame (a browser's
//     requestAnimationFrame, another engine's callback): hand it the time, get the ticks owed.
//   - Interpolated, Vec2, Vec3: keep the previous and current state of a value and blend them.
//   - SharedClock and Pool: for a game server that runs many matches in one process. Loops
//     with Config.Clock set to one SharedClock (and Config.NoFrames) keep the whole Loop API
//     and wait through one waiter; a Pool runs matches as Games with no goroutine each. See
//     docs/server.md for which to choose and what each costs.
//
// # Getting a window
//
// This package has no window of its own but HeadlessWindow (for servers and tests): a Window
// comes from a backend. Package github.com/gameloop-go/gameloop/backend/term is a terminal
// (pure Go, via tcell); package github.com/gameloop-go/gameloop/backend/glfw is a GLFW window
// with an OpenGL 3.3 context (cgo). Either is passed as Config.Window:
//
//	go get github.com/gameloop-go/gameloop@latest
//
//	win, err := term.Open(term.Options{})
//	if err != nil { ... }
//	defer win.Close()
//	loop, err := gameloop.New(gameloop.Config{TickRate: 60, MaxFPS: 60, Window: win})
//
// # Limits
//
// Game time is int64 nanoseconds, kept small by moving its origin forward as it grows, so a
// loop runs for as long as its clock does (292 years of nanoseconds) at every accepted setting,
// TimeScale up to 10^6 included. A single pass that spans more than 73 years of game time (a
// stall of over 38 minutes at TimeScale 10^6) lets the excess go uncounted in DroppedTicks.
//
// Time is kept in integer nanoseconds throughout: tick n is due exactly n/TickRate seconds of
// game time after the start, so a simulated day at 60 Hz is exactly 5,184,000 ticks. Floats
// appear only at the edges (Alpha, seconds handed to the game). A ManualClock makes every rule
// testable without waiting; Config.Bench plays a game through as fast as the machine allows.
package gameloop
