// Package web runs a game in a web browser, compiled to WebAssembly (GOOS=js GOARCH=wasm), on
// the page's requestAnimationFrame, with keyboard and gamepad input and a <canvas> to draw on.
// It uses syscall/js and nothing else: no cgo, no JavaScript framework.
//
// In a browser the page owns the frame: requestAnimationFrame calls the game once per display
// refresh, and the game must not block. The Driver is the loop for that host: handed the time
// of each frame, it delivers the input that came since the last one (each marked with the tick
// it precedes), runs the fixed-step updates owed by a gameloop.Schedule (catch-up bounded by
// MaxTicksPerFrame and MaxFrameTime, the rest dropped), and asks for one frame to be drawn with
// Alpha and Ext, exactly as gameloop.Loop does on the desktop. Pause, the time scale, the tick
// rate and Stats work as they do there; the display paces the frames, so MaxFPS is not used.
// The Driver reads no clock and touches no browser API: it builds and is tested natively.
//
// Canvas (built only for js/wasm) connects a Driver to a page:
//
//	canvas, err := web.OpenCanvas("game") // <canvas id="game">
//	if err != nil { ... }
//	driver, err := web.NewDriver(gameloop.Config{TickRate: 60})
//	if err != nil { ... }
//	err = canvas.Run(ctx, driver, game) // until the game returns gameloop.ErrStop
//
// The game is a gameloop.Game, as Loop.Run takes; its Render draws with canvas.Context2D() at
// Render.Width by Render.Height, the canvas's size in device pixels (its size on the page times
// devicePixelRatio). A page that runs its own requestAnimationFrame callback can pull a frame's
// events instead, with Driver.Events.
//
// # Gamepads
//
// The browser's Gamepad API has no events for buttons and sticks: Canvas.Run reads
// navigator.getGamepads() once a display frame, before the frame is run, and turns what changed
// into gamepad input (Gamepads). Gamepad index i is gameloop.GamepadID(i). Only gamepads of the
// W3C "standard" mapping are reported, since gameloop's GamepadButton and GamepadAxis follow its
// layout; the triggers' travel comes from the values of buttons 6 and 7, and every axis is
// quantised to an integer (gameloop.QuantizeAxis) where it is read, so that a recording replays
// it exactly. The mapping from what the API reports to a gameloop.GamepadState
// (PolledGamepad.State) builds and is tested natively.
//
// # A hidden page
//
// While the page is hidden (another tab, a minimised window) the browser stops calling
// requestAnimationFrame. Canvas.Run reports visibilitychange to the Driver (SetHidden), which
// pauses game time for as long as the page is hidden. Dropping the time instead, as any other
// stall is, would run MaxTicksPerFrame ticks in the first frame back, a visible jump, count the
// time away as the game running slowly, and move the game on by a quarter of a second at most
// anyway; pausing resumes the game where the player left it, and keeps the time away out of the
// frame times and rates. A game whose time must follow the wall clock (one in step with a
// server) should take its time from the server instead.
package web
