package glfw

import (
	"github.com/gameloop-go/gameloop"
	glfw33 "github.com/go-gl/glfw/v3.3/glfw"
)

// glfwButtons maps GLFW's gamepad buttons, by index, to the standard layout's. GLFW remaps each
// joystick it has an SDL game controller mapping for (it carries SDL's database) to an Xbox-like
// pad of 15 buttons; the triggers are axes there. It is read-only.
var glfwButtons = [...]gameloop.GamepadButton{
	glfw33.ButtonA:           gameloop.GamepadSouth,
	glfw33.ButtonB:           gameloop.GamepadEast,
	glfw33.ButtonX:           gameloop.GamepadWest,
	glfw33.ButtonY:           gameloop.GamepadNorth,
	glfw33.ButtonLeftBumper:  gameloop.GamepadLeftBumper,
	glfw33.ButtonRightBumper: gameloop.GamepadRightBumper,
	glfw33.ButtonBack:        gameloop.GamepadBack,
	glfw33.ButtonStart:       gameloop.GamepadStart,
	glfw33.ButtonGuide:       gameloop.GamepadGuide,
	glfw33.ButtonLeftThumb:   gameloop.GamepadLeftStick,
	glfw33.ButtonRightThumb:  gameloop.GamepadRightStick,
	glfw33.ButtonDpadUp:      gameloop.GamepadUp,
	glfw33.ButtonDpadRight:   gameloop.GamepadRight,
	glfw33.ButtonDpadDown:    gameloop.GamepadDown,
	glfw33.ButtonDpadLeft:    gameloop.GamepadLeft,
}

// gamepadState returns the standard layout's state of a connected gamepad from GLFW's: the
// buttons mapped by glfwButtons, the sticks as they are (GLFW's, like the standard layout's,
// go from -1, left and up, to 1), and each trigger, which GLFW reports from -1 (released) to 1,
// as its travel from 0 to 1 and as a button held past half way.
func gamepadState(gs *glfw33.GamepadState) gameloop.GamepadState {
	s := gameloop.GamepadState{Connected: true}
	for i, b := range glfwButtons {
		s.SetButton(b, gs.Buttons[i] == glfw33.Press)
	}
	s.SetAxis(gameloop.GamepadLeftX, float64(gs.Axes[glfw33.AxisLeftX]))
	s.SetAxis(gameloop.GamepadLeftY, float64(gs.Axes[glfw33.AxisLeftY]))
	s.SetAxis(gameloop.GamepadRightX, float64(gs.Axes[glfw33.AxisRightX]))
	s.SetAxis(gameloop.GamepadRightY, float64(gs.Axes[glfw33.AxisRightY]))
	for _, t := range [...]struct {
		axis   glfw33.GamepadAxis
		travel gameloop.GamepadAxis
		button gameloop.GamepadButton
	}{
		{glfw33.AxisLeftTrigger, gameloop.GamepadLeftTriggerAxis, gameloop.GamepadLeftTrigger},
		{glfw33.AxisRightTrigger, gameloop.GamepadRightTriggerAxis, gameloop.GamepadRightTrigger},
	} {
		s.SetAxis(t.travel, (float64(gs.Axes[t.axis])+1)/2)
		s.SetButton(t.button, s.Axis(t.travel) > gameloop.AxisMax/2)
	}
	return s
}

// pollGamepads appends the input that takes the game from the gamepads' last polled states to
// their states now. GLFW's joystick ids are the slots: GLFW gives a new joystick the lowest free
// id, as gameloop.GamepadID wants. Joysticks without a gamepad mapping are not reported.
// go-gl's GetGamepadState allocates its result: one small allocation a frame for each gamepad
// connected, none without one.
func (w *Window) pollGamepads(buf []gameloop.Input) []gameloop.Input {
	for i := range w.pads {
		j := glfw33.Joystick1 + glfw33.Joystick(i)
		var next gameloop.GamepadState
		if j <= glfw33.JoystickLast && j.IsGamepad() {
			if gs := j.GetGamepadState(); gs != nil {
				next = gamepadState(gs)
			}
		}
		buf = gameloop.AppendGamepadInputs(buf, gameloop.GamepadID(i), &w.pads[i], &next)
		w.pads[i] = next
	}
	return buf
}
