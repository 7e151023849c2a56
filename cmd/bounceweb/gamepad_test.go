//go:build !(js && wasm)

package main

// The gamepad test: bounce in headless Chromium played with a gamepad that the test scripts,
// since a headless browser has none. The page's navigator.getGamepads is replaced by one that
// returns the scripted gamepad, a plain object shaped as the W3C Gamepad API's, which the test
// changes between frames as a player would; backend/web reads it once a display frame as it
// reads a real one.

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/internal/chromiumtest"
	"github.com/gameloop-go/gameloop/replay"
)

var keepGamepad = flag.String("gamepad-recording", "", "copy the recording the gamepad browser test makes in the page to this `file`")

// scriptedGamepad replaces navigator.getGamepads with one that returns window.__pad's gamepad
// in slot 0 while it is connected: a standard-mapping gamepad of 17 buttons and 4 axes, all
// released and centred, that press(i, value), release(i), axis(i, v), connect() and
// disconnect() change.
const scriptedGamepad = `(() => {
	const released = () => ({pressed: false, touched: false, value: 0});
	const pad = {id: "scripted gamepad (STANDARD GAMEPAD)", index: 0, connected: false, mapping: "standard",
		buttons: Array.from({length: 17}, released), axes: [0, 0, 0, 0], timestamp: 0};
	const changed = () => { pad.timestamp = performance.now(); };
	window.__pad = {
		connect() { pad.connected = true; changed(); },
		disconnect() { pad.connected = false; changed(); },
		press(i, value = 1) { pad.buttons[i] = {pressed: true, touched: true, value}; changed(); },
		release(i) { pad.buttons[i] = released(); changed(); },
		axis(i, v) { pad.axes[i] = v; changed(); },
	};
	Object.defineProperty(navigator, "getGamepads", {configurable: true,
		value: () => [pad.connected ? pad : null, null, null, null]});
	return true;
})()`

// wantGamepadInputs are the gamepad inputs TestBrowserGamepad plays, in order, as the page
// records them (ticks aside): slot 0, the axes quantised (-0.5 is -16384, 0.75 of the trigger
// 24575, 0.25 8192), and the disconnect with East and the stick held releasing and zeroing them.
var wantGamepadInputs = []gameloop.Input{
	{Kind: gameloop.GamepadConnect},
	{Kind: gameloop.GamepadPress, PadButton: gameloop.GamepadSouth},
	{Kind: gameloop.GamepadRelease, PadButton: gameloop.GamepadSouth},
	{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadLeftX, AxisValue: -16384},
	{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadLeftX, AxisValue: 0},
	{Kind: gameloop.GamepadPress, PadButton: gameloop.GamepadRightTrigger},
	{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadRightTriggerAxis, AxisValue: 24575},
	{Kind: gameloop.GamepadRelease, PadButton: gameloop.GamepadRightTrigger},
	{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadRightTriggerAxis, AxisValue: 0},
	{Kind: gameloop.GamepadPress, PadButton: gameloop.GamepadEast},
	{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadLeftY, AxisValue: 8192},
	{Kind: gameloop.GamepadRelease, PadButton: gameloop.GamepadEast},
	{Kind: gameloop.GamepadMove, Axis: gameloop.GamepadLeftY, AxisValue: 0},
	{Kind: gameloop.GamepadDisconnect},
}

// checkGamepadInputs checks that rec holds wantGamepadInputs, in order, each before a tick of
// the recording.
func checkGamepadInputs(t *testing.T, rec *replay.Recording) {
	t.Helper()
	var got []gameloop.Input
	var last uint64
	for _, in := range rec.Inputs {
		if in.Kind < gameloop.GamepadConnect || in.Kind > gameloop.GamepadMove {
			continue
		}
		if in.Tick < max(last, 1) {
			t.Errorf("%v comes at tick %d, after an input at tick %d", &in, in.Tick, last)
		}
		last = in.Tick
		in.Tick = 0
		got = append(got, in)
	}
	if last > rec.Ticks {
		t.Errorf("the last gamepad input comes before tick %d, after the recording's last (%d): no checksum covers it", last, rec.Ticks)
	}
	if !slices.Equal(got, wantGamepadInputs) {
		t.Errorf("the recording's gamepad inputs:\n%s\nwant\n%s", inputList(got), inputList(wantGamepadInputs))
	}
}

// inputList returns the inputs, one a line.
func inputList(ins []gameloop.Input) string {
	var b strings.Builder
	for i := range ins {
		fmt.Fprintf(&b, "\t%v\n", &ins[i])
	}
	return b.String()
}

// simState is what window.bounceweb.sim() returns: the simulation's ticks and its balls'
// velocities, in fixed-point units per second.
type simState struct {
	Ticks uint64
	Balls []struct{ VX, VY int64 }
}

func (b *browser) sim() simState {
	b.t.Helper()
	s := do(b, chromedp.Evaluate[string](`bounceweb.sim()`))
	var st simState
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		b.t.Fatalf("bounceweb.sim() = %q: %v", s, err)
	}
	return st
}

// waitTicks waits for n more ticks of the simulation, and returns its state then.
func (b *browser) waitTicks(n uint64) simState {
	b.t.Helper()
	ticks := b.sim().Ticks
	b.waitFor(fmt.Sprintf("%d more ticks", n), fmt.Sprintf(`JSON.parse(bounceweb.sim()).Ticks >= %d`, ticks+n))
	return b.sim()
}

// speeds returns how many balls' speeds across (|VX|) and down (|VY|) differ between a and b.
// Without a stick held or gravity, a ball's speed across and down never changes: a wall only
// turns it back.
func speeds(t *testing.T, a, b simState) (across, down int) {
	t.Helper()
	if len(a.Balls) != len(b.Balls) {
		t.Fatalf("%d balls, then %d", len(a.Balls), len(b.Balls))
	}
	abs := func(v int64) int64 { return max(v, -v) }
	for i := range a.Balls {
		if abs(a.Balls[i].VX) != abs(b.Balls[i].VX) {
			across++
		}
		if abs(a.Balls[i].VY) != abs(b.Balls[i].VY) {
			down++
		}
	}
	return across, down
}

// TestBrowserGamepad plays bounce in Chromium with a scripted gamepad: connected, South adds a
// ball, the left stick held half left changes the balls' speed across and nothing else, the
// right trigger's travel arrives quantised, and the gamepad disconnected while East and the
// stick are held releases them. The recording the page makes holds those inputs, quantised,
// and replays matched natively.
func TestBrowserGamepad(t *testing.T) {
	chromium := chromiumtest.Find(t)
	s := buildSite(t)
	recordPath := filepath.Join(t.TempDir(), "gamepad.rec")
	var log syncBuffer
	ts := httptest.NewServer(s.handler(recordPath, &log))
	defer ts.Close()
	b := startBrowser(t, chromium, ts.URL)
	defer func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", log.String())
		}
	}()

	b.open("?seed=7&balls=3")
	// The scripted gamepad replaces getGamepads once the game runs: backend/web calls it
	// afresh each frame.
	do(b, chromedp.Evaluate[bool](scriptedGamepad))
	pad := func(script string) { do(b, chromedp.Evaluate[bool](script+"; true")) }
	// padIs waits for gamepad 0, as the game's input left it, to be as the expression on it
	// (g: Connected, Buttons, Axes) says.
	padIs := func(what, expr string) {
		b.t.Helper()
		b.waitFor(what, fmt.Sprintf(`((g) => %s)(JSON.parse(bounceweb.gamepad(0)))`, expr))
	}

	pad(`__pad.connect()`)
	padIs("the gamepad to connect", `g.Connected && g.Buttons === 0`)
	pad(`__pad.press(0)`)
	b.waitFor("a fourth ball", `bounceweb.status().endsWith(" 4 balls")`)
	padIs("South held", `g.Buttons === 1`)
	pad(`__pad.release(0)`)
	padIs("South released", `g.Buttons === 0`)

	// The balls' speeds stay as they are with the stick centred, change across (and only
	// across) while it is held left, and stay again once it is back.
	before := b.sim()
	steady := b.waitTicks(5)
	if across, down := speeds(t, before, steady); across+down != 0 {
		t.Errorf("the stick centred, ticks %d to %d: %d balls changed speed across, %d down; want none", before.Ticks, steady.Ticks, across, down)
	}
	pad(`__pad.axis(0, -0.5)`)
	padIs("the left stick half left", `g.Axes[0] === -16384`)
	held := b.sim()
	pushed := b.waitTicks(10)
	if across, down := speeds(t, held, pushed); across == 0 || down != 0 {
		t.Errorf("the stick held left, ticks %d to %d: %d balls changed speed across, %d down; want some across, none down", held.Ticks, pushed.Ticks, across, down)
	}
	pad(`__pad.axis(0, 0)`)
	padIs("the stick centred", `g.Axes[0] === 0`)
	centred := b.sim()
	after := b.waitTicks(5)
	if across, down := speeds(t, centred, after); across+down != 0 {
		t.Errorf("the stick centred again, ticks %d to %d: %d balls changed speed across, %d down; want none", centred.Ticks, after.Ticks, across, down)
	}
	t.Logf("%d balls: speeds steady over ticks %d-%d, changed across by the stick over %d-%d, steady again over %d-%d",
		len(after.Balls), before.Ticks, steady.Ticks, held.Ticks, pushed.Ticks, centred.Ticks, after.Ticks)

	// The right trigger three quarters in: pressed, and its travel as an axis.
	pad(`__pad.press(7, 0.75)`)
	padIs("the right trigger held", `g.Buttons === 1 << 7 && g.Axes[5] === 24575`)
	pad(`__pad.release(7)`)
	padIs("the right trigger released", `g.Buttons === 0 && g.Axes[5] === 0`)

	// Disconnected while East (a ball fewer) and the stick are held: both let go first.
	pad(`__pad.press(1); __pad.axis(1, 0.25)`)
	b.waitFor("a ball fewer", `bounceweb.status().endsWith(" 3 balls")`)
	padIs("East and the stick held", `g.Buttons === 2 && g.Axes[1] === 8192`)
	b.waitTicks(2) // ticks with the stick held down, which the disconnect must stop
	pad(`__pad.disconnect()`)
	padIs("the gamepad to disconnect", `!g.Connected && g.Buttons === 0 && g.Axes.every((a) => a === 0)`)
	b.waitTicks(3) // so that the recording's checksums cover the disconnect, which let go of the stick

	data, rec := b.save(recordPath)
	checkGamepadInputs(t, rec)
	if *keepGamepad != "" {
		if err := os.WriteFile(*keepGamepad, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := bouncegame.Replay(t.Context(), rec.Header, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded in the browser: %d ticks, %d inputs, %d bytes; replayed natively: %v", rec.Ticks, len(rec.Inputs), len(data), res)
	if !res.Matched() || res.Inputs != len(rec.Inputs) {
		t.Errorf("the recording made with the gamepad in Chromium, replayed natively: %v; want matched, all %d inputs", res, len(rec.Inputs))
	}
}
