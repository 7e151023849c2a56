//go:build js && wasm

package web

import (
	"syscall/js"

	"github.com/gameloop-go/gameloop"
)

// Gamepads reads the page's gamepads with the browser's Gamepad API (navigator.getGamepads())
// and turns what changed into gamepad input for a Driver. The API has no events for buttons
// and sticks: a page reads the gamepads' state when it wants it, and Canvas.Run does so once a
// display frame, before the frame's input is delivered. A page that runs its own
// requestAnimationFrame callback (Driver.Events) calls Poll there instead.
//
// Gamepad index i of getGamepads() is gameloop.GamepadID(i), for i below
// gameloop.MaxGamepads; the others are ignored. Only gamepads whose mapping is "standard" are
// reported (see PolledGamepad): one the browser does not map counts as not connected. A
// gamepad that leaves getGamepads() (its slot null, or its connected false) is disconnected:
// its held buttons are released, its axes moved to 0, then GamepadDisconnect comes. Browsers
// report a gamepad only once a button of it has been pressed while the page was open, and only
// to a visible page that has the focus.
//
// A Gamepads is used by one goroutine at a time, the page's.
type Gamepads struct {
	nav      js.Value
	standard js.Value // the string "standard", compared with each mapping without a Go string
	off      bool     // the page has no getGamepads, or it threw: read nothing more
	slots    gamepadSlots
	polled   PolledGamepad
	inputs   []gameloop.Input
}

// NewGamepads returns a reader of the page's gamepads, none of them connected yet. On a page
// without the Gamepad API (an old browser, a page that is not a secure context) Poll reports
// nothing.
func NewGamepads() *Gamepads {
	g := &Gamepads{standard: js.ValueOf("standard"), inputs: make([]gameloop.Input, 0, 64)}
	g.nav = js.Global().Get("navigator")
	g.off = g.nav.Type() != js.TypeObject || g.nav.Get("getGamepads").Type() != js.TypeFunction
	return g
}

// Poll reads every gamepad slot and pushes to d (Driver.Push) the inputs that take each from
// what the last Poll read to what it reads now, slot 0 first, in the order of
// gameloop.AppendGamepadInputs. If getGamepads throws (a permissions policy that forbids
// gamepads), the gamepads connected are disconnected and Poll reads nothing from then on. In
// steady state it allocates nothing but what syscall/js allocates for each JavaScript object
// it reads.
func (g *Gamepads) Poll(d *Driver) {
	g.inputs = g.inputs[:0]
	pads, n := g.list()
	for i := range gameloop.MaxGamepads {
		g.polled = PolledGamepad{}
		if i < n {
			g.read(pads.Index(i))
		}
		g.inputs = g.slots.poll(g.inputs, i, &g.polled)
	}
	if len(g.inputs) > 0 {
		d.Push(g.inputs...)
	}
}

// list returns navigator.getGamepads() and its length: 0 once it is off.
func (g *Gamepads) list() (pads js.Value, n int) {
	if g.off {
		return js.Undefined(), 0
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(js.Error); !ok {
				panic(r)
			}
			g.off = true
			pads, n = js.Undefined(), 0
		}
	}()
	pads = g.nav.Call("getGamepads")
	if pads.Type() != js.TypeObject {
		return pads, 0
	}
	return pads, pads.Length()
}

// read reads the Gamepad object pad (or null) into g.polled, which is zero.
func (g *Gamepads) read(pad js.Value) {
	if pad.Type() != js.TypeObject || !pad.Get("connected").Truthy() {
		return
	}
	p := &g.polled
	p.Connected = true
	p.Standard = pad.Get("mapping").Equal(g.standard)
	if !p.Standard {
		return
	}
	if buttons := pad.Get("buttons"); buttons.Type() == js.TypeObject {
		for i := range min(buttons.Length(), len(p.Pressed)) {
			b := buttons.Index(i)
			if b.Type() != js.TypeObject {
				continue
			}
			p.Pressed[i] = b.Get("pressed").Truthy()
			p.Values[i] = number(b.Get("value"))
		}
	}
	if axes := pad.Get("axes"); axes.Type() == js.TypeObject {
		for i := range min(axes.Length(), len(p.Axes)) {
			p.Axes[i] = number(axes.Index(i))
		}
	}
}

// number returns v as a float, 0 if it is not a number.
func number(v js.Value) float64 {
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Float()
}
