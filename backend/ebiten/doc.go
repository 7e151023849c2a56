// Package ebiten runs a gameloop game inside Ebitengine (github.com/hajimehoshi/ebiten/v2):
// Ebitengine keeps its window, its images, its input and its event pump; gameloop decides how
// many fixed updates each displayed frame owes, and hands the frame's Alpha and Ext to the
// game's Draw, so that a game drawn at the display's rate moves smoothly between updates that
// run at a fixed, lower rate.
//
// Ebitengine alone calls a game's Update at a fixed TPS (60) and its Draw once per displayed
// frame, with nothing between them: on a display faster than the TPS the same state is drawn
// two or three frames in a row. Here Ebitengine's Update is called once per displayed frame
// (ebiten.SetTPS(ebiten.SyncWithFPS)); there the adapter reads the time and a
// gameloop.Schedule says which of the game's ticks are owed: none, one or several, at most
// Config.MaxTicksPerFrame, the rest dropped and counted as everywhere in gameloop. Ebitengine's
// Draw then draws the frame with gameloop.Render's Alpha:
//
//	Ebitengine frame ─▶ Update: Input × k        what Ebitengine reports this frame, marked with the tick it precedes
//	                          ├─ Update × n       the ticks owed at this frame's time, 0 <= n <= MaxTicksPerFrame
//	                          └─ VariableUpdate   once, with the real time since the last frame
//	                  ─▶ Draw:  Draw(screen, r)   r.Alpha and r.Ext to interpolate or extrapolate
//
// A game is a gameloop.Game, as gameloop.Loop.Run takes; it draws by implementing Drawer (it
// gets Ebitengine's screen with the Render), or gameloop.Renderer for a game that draws no
// Ebitengine image. Its state is its own, and the same game runs on any other backend, headless,
// replayed by package replay, or in a netplay session: nothing in the simulation depends on the
// frame rate.
//
//	import gle "github.com/gameloop-go/gameloop/backend/ebiten" // named as the engine: rename one
//
//	func main() {
//		g, err := gle.New(&game{}, gameloop.Config{TickRate: 20})
//		if err != nil { ... }
//		ebiten.SetWindowTitle("game") // Ebitengine's own settings, as before
//		err = gle.Run(g, nil)         // until the game returns gameloop.ErrStop or the window closes
//	}
//
// A game wrapped by another keeps its Draw and Layout: New looks for them through any
// gameloop.Wrapper, such as replay.Recorder.Game's wrapper (a game recorded in the window) and
// netplay.NewLoopGame's game. NewLoopGame needs the Game that runs it as its loop: NewFunc makes
// the Game first and hands it to the function that makes the game.
//
// Pause, Resume, SetTimeScale, SetTickRate and Stats work as on a gameloop.Loop. Ebitengine
// paces the frames (v-sync, ebiten.SetVsyncEnabled), so Config.MaxFPS is refused, as are
// Config.Lazy, Bench, NoFrames, Clock (but for a *gameloop.ManualClock, for tests) and Window.
//
// # Input
//
// Ebitengine reports input as state, once per frame, not as events: the adapter turns what
// changed since the last frame into gameloop.Input, in this order: keys released, keys pressed,
// typed characters, mouse buttons released and pressed (at the cursor), the cursor moved, the
// wheel, focus, the gamepads, the screen's new size (a Resize, from Layout), and the window's
// close button. A key pressed and released within one frame is not seen; a held key does not
// repeat.
//
// Gamepads are read through Ebitengine's standard gamepad API: each gamepad with the standard
// layout (ebiten.IsStandardGamepadLayoutAvailable) gets the lowest free gameloop.GamepadID
// when it appears, and what changed on it since the last frame comes as inputs in the order of
// gameloop.AppendGamepadInputs: connected, buttons released, pressed, axes moved (quantised:
// gameloop.QuantizeAxis), disconnected. Gamepads of other layouts are not reported.
//
// # The window
//
// Closing the window delivers a Close input to the game and ends Run once the frame is done,
// as with backend/glfw; a game that wants to ask first calls SetShouldClose(false) while it
// handles the input. While the window is minimised the game goes on ticking and no frame is
// drawn, as with backend/glfw.
//
// Ebitengine needs cgo and a display on Linux: a program that imports it, tests included, ends
// at start-up without DISPLAY (run under xvfb-run for a virtual one). Ebitengine allows one
// RunGame a process.
package ebiten
