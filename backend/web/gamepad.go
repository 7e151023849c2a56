package web

import "github.com/gameloop-go/gameloop"

// W3C standard mapping indices that are not simply a button: the triggers, whose travel is
// their button's value, and the four axes of the two sticks.
const (
	w3cLeftTrigger  = int(gameloop.GamepadLeftTrigger) - 1  // buttons[6]
	w3cRightTrigger = int(gameloop.GamepadRightTrigger) - 1 // buttons[7]
	w3cAxes         = 4                                     // axes[0..3]: left X, left Y, right X, right Y
)

// PolledGamepad is one slot of the browser's navigator.getGamepads(), as read in one poll:
// the part of a W3C Gamepad object that the standard layout uses. Gamepads polls the page's
// gamepads into it; State turns it into a gameloop.GamepadState.
type PolledGamepad struct {
	// Connected is false for an empty slot (null, or past the end of the array) and for a
	// gamepad whose connected is false.
	Connected bool
	// Standard is whether the gamepad's mapping is "standard": the W3C standard layout,
	// whose button and axis indices gameloop's GamepadButton and GamepadAxis follow. A
	// gamepad the browser could not map ("" mapping) has buttons and axes in an order of its
	// driver's, which no game could rely on: it counts as not connected.
	Standard bool
	// Pressed holds buttons[i].pressed, and Values buttons[i].value (0 to 1), for the
	// standard layout's buttons i = 0 to 16; a button the gamepad does not have is false and
	// 0, and the buttons past 16 (a touchpad's, say) are not read.
	Pressed [gameloop.GamepadButtons]bool
	Values  [gameloop.GamepadButtons]float64
	// Axes holds axes[0] to axes[3]: the left stick's X and Y, then the right stick's, from
	// -1 (left, up) to 1 (right, down); an axis the gamepad does not have is 0.
	Axes [w3cAxes]float64
}

// State returns the gamepad's state: not connected unless p is Connected and Standard;
// otherwise button GamepadButton(i+1) held where Pressed[i], the sticks' axes from Axes and
// the triggers' travel (GamepadLeftTriggerAxis, GamepadRightTriggerAxis) from the values of
// buttons 6 and 7, each quantised with gameloop.QuantizeAxis (a trigger's below 0 taken as 0).
// Two polls that read the same floats give the same state, to the bit.
func (p *PolledGamepad) State() gameloop.GamepadState {
	if !p.Connected || !p.Standard {
		return gameloop.GamepadState{}
	}
	s := gameloop.GamepadState{Connected: true}
	for i, down := range p.Pressed {
		s.SetButton(gameloop.GamepadButton(i+1), down)
	}
	for i, v := range p.Axes {
		s.SetAxis(gameloop.GamepadLeftX+gameloop.GamepadAxis(i), v)
	}
	s.SetAxis(gameloop.GamepadLeftTriggerAxis, max(p.Values[w3cLeftTrigger], 0))
	s.SetAxis(gameloop.GamepadRightTriggerAxis, max(p.Values[w3cRightTrigger], 0))
	return s
}

// gamepadSlots holds what each gamepad slot held at the last poll, to turn the next poll into
// the inputs that changed.
type gamepadSlots struct {
	prev [gameloop.MaxGamepads]gameloop.GamepadState
}

// poll appends to dst the inputs that take slot id from its last poll to p (see
// gameloop.AppendGamepadInputs), remembers p's state, and returns the extended slice. A slot
// past MaxGamepads is ignored. It allocates only to grow dst.
func (g *gamepadSlots) poll(dst []gameloop.Input, id int, p *PolledGamepad) []gameloop.Input {
	if id < 0 || id >= len(g.prev) {
		return dst
	}
	next := p.State()
	dst = gameloop.AppendGamepadInputs(dst, gameloop.GamepadID(id), &g.prev[id], &next)
	g.prev[id] = next
	return dst
}
