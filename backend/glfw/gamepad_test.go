package glfw

import (
	"testing"

	"github.com/gameloop-go/gameloop"
	glfw33 "github.com/go-gl/glfw/v3.3/glfw"
)

// TestGamepadMapping: each of GLFW's 15 gamepad buttons is one button of the standard layout,
// no two the same, and with the triggers they are all 17; the sticks pass through quantised;
// a trigger's -1 to 1 becomes its travel from 0 to AxisMax and a button held past half way.
// (These machines have no /dev/input: the mapping is tested here, without a device.)
func TestGamepadMapping(t *testing.T) {
	seen := map[gameloop.GamepadButton]bool{}
	for i := range glfwButtons {
		var gs glfw33.GamepadState
		gs.Axes[glfw33.AxisLeftTrigger], gs.Axes[glfw33.AxisRightTrigger] = -1, -1
		gs.Buttons[i] = glfw33.Press
		s := gamepadState(&gs)
		if !s.Connected || s.Buttons == 0 || s.Buttons&(s.Buttons-1) != 0 {
			t.Fatalf("GLFW button %d alone gives %+v: want one button held", i, s)
		}
		var b gameloop.GamepadButton
		for b = 1; !s.Pressed(b); b++ {
		}
		if seen[b] {
			t.Fatalf("GLFW button %d is %v, as another is", i, b)
		}
		seen[b] = true
		if s.Axes != [gameloop.GamepadAxes]int16{} {
			t.Fatalf("GLFW button %d: axes %v, want all 0", i, s.Axes)
		}
	}
	if seen[gameloop.GamepadLeftTrigger] || seen[gameloop.GamepadRightTrigger] || len(seen) != gameloop.GamepadButtons-2 {
		t.Fatalf("GLFW's buttons give %d of the standard layout's %d, triggers apart: %v", len(seen), gameloop.GamepadButtons-2, seen)
	}
	for i, b := range map[glfw33.GamepadButton]gameloop.GamepadButton{
		glfw33.ButtonA: gameloop.GamepadSouth, glfw33.ButtonY: gameloop.GamepadNorth, glfw33.ButtonBack: gameloop.GamepadBack,
		glfw33.ButtonDpadLeft: gameloop.GamepadLeft, glfw33.ButtonGuide: gameloop.GamepadGuide,
	} {
		if glfwButtons[i] != b {
			t.Errorf("GLFW button %d is %v, want %v", i, glfwButtons[i], b)
		}
	}

	for _, c := range []struct {
		trigger float32
		travel  int16
		pressed bool
	}{{-1, 0, false}, {-0.5, 8192, false}, {0, 16384, true}, {1, gameloop.AxisMax, true}} {
		var gs glfw33.GamepadState
		gs.Axes[glfw33.AxisLeftX], gs.Axes[glfw33.AxisRightY] = -1, 0.25
		gs.Axes[glfw33.AxisLeftTrigger], gs.Axes[glfw33.AxisRightTrigger] = c.trigger, -1
		s := gamepadState(&gs)
		if s.Axis(gameloop.GamepadLeftX) != -gameloop.AxisMax || s.Axis(gameloop.GamepadRightY) != 8192 {
			t.Errorf("sticks -1, 0.25 give %d, %d", s.Axis(gameloop.GamepadLeftX), s.Axis(gameloop.GamepadRightY))
		}
		if s.Axis(gameloop.GamepadLeftTriggerAxis) != c.travel || s.Pressed(gameloop.GamepadLeftTrigger) != c.pressed {
			t.Errorf("left trigger at %g: travel %d pressed %v, want %d %v", c.trigger,
				s.Axis(gameloop.GamepadLeftTriggerAxis), s.Pressed(gameloop.GamepadLeftTrigger), c.travel, c.pressed)
		}
		if s.Axis(gameloop.GamepadRightTriggerAxis) != 0 || s.Pressed(gameloop.GamepadRightTrigger) {
			t.Errorf("right trigger released reads %d", s.Axis(gameloop.GamepadRightTriggerAxis))
		}
	}
}
