package gameloop_test

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
)

// A game follows its gamepads from their inputs with GamepadState.Apply, and reads them in its
// update: the integers the inputs carry, the same on every machine and in every replay.
// AppendGamepadInputs is what backends use to turn a polled state into those inputs.
func ExampleGamepadState() {
	// What a backend polled in two frames: the pad connected with the left stick pushed half
	// right, then South pressed.
	var before, polled gameloop.GamepadState
	polled.Connected = true
	polled.SetAxis(gameloop.GamepadLeftX, 0.5)
	inputs := gameloop.AppendGamepadInputs(nil, 0, &before, &polled)
	before = polled
	polled.SetButton(gameloop.GamepadSouth, true)
	inputs = gameloop.AppendGamepadInputs(inputs, 0, &before, &polled)

	// The game's side.
	var pads [gameloop.MaxGamepads]gameloop.GamepadState
	for i := range inputs {
		in := &inputs[i]
		fmt.Println(in)
		pads[in.Gamepad].Apply(in)
	}
	pad := &pads[0]
	fmt.Println("jump:", pad.Pressed(gameloop.GamepadSouth), "run:", pad.Axis(gameloop.GamepadLeftX), "of", gameloop.AxisMax)
	// Output:
	// Input{GamepadConnect gamepad 0 tick=0}
	// Input{GamepadMove gamepad 0 LeftX 16384 tick=0}
	// Input{GamepadPress gamepad 0 South tick=0}
	// jump: true run: 16384 of 32767
}
