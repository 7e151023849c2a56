package gameloop

import (
	"math"
	"math/bits"
	"strconv"
)

// GamepadID names a gamepad: the slot, 0 to MaxGamepads-1, that the backend gave it when it was
// connected. A slot is reused once its gamepad is disconnected.
type GamepadID uint8

// MaxGamepads is how many gamepads the backends report at once; a further one is not reported
// until one of these is disconnected.
const MaxGamepads = 16

// GamepadButton names a button of the standard gamepad layout: the layout of the W3C Gamepad
// specification's "standard" mapping, which SDL's game controllers and Ebitengine's standard
// gamepads share. Its values are the W3C button indices plus one, so that 0 is no button.
type GamepadButton uint8

// The buttons of the standard layout. The face buttons are named by where they sit, which every
// make of gamepad agrees on, rather than by their labels, which differ.
const (
	// GamepadSouth is the bottom face button: A on an Xbox pad, Cross on a PlayStation's.
	GamepadSouth GamepadButton = iota + 1
	// GamepadEast is the right face button: B, Circle.
	GamepadEast
	// GamepadWest is the left face button: X, Square.
	GamepadWest
	// GamepadNorth is the top face button: Y, Triangle.
	GamepadNorth
	// GamepadLeftBumper is the left shoulder button (LB, L1).
	GamepadLeftBumper
	// GamepadRightBumper is the right shoulder button (RB, R1).
	GamepadRightBumper
	// GamepadLeftTrigger is the left trigger (LT, L2) held past half way; its travel is the
	// axis GamepadLeftTriggerAxis.
	GamepadLeftTrigger
	// GamepadRightTrigger is the right trigger (RT, R2) held past half way; its travel is
	// the axis GamepadRightTriggerAxis.
	GamepadRightTrigger
	// GamepadBack is the left centre button: Back, View, Select, Share.
	GamepadBack
	// GamepadStart is the right centre button: Start, Menu, Options.
	GamepadStart
	// GamepadLeftStick is the left stick pressed in (L3).
	GamepadLeftStick
	// GamepadRightStick is the right stick pressed in (R3).
	GamepadRightStick
	// GamepadUp is the d-pad's up.
	GamepadUp
	// GamepadDown is the d-pad's down.
	GamepadDown
	// GamepadLeft is the d-pad's left.
	GamepadLeft
	// GamepadRight is the d-pad's right.
	GamepadRight
	// GamepadGuide is the central button: Xbox, PS, Home.
	GamepadGuide

	// GamepadButtons is the number of buttons of the standard layout.
	GamepadButtons = int(GamepadGuide)
)

var gamepadButtonNames = [...]string{
	GamepadSouth: "South", GamepadEast: "East", GamepadWest: "West", GamepadNorth: "North",
	GamepadLeftBumper: "LeftBumper", GamepadRightBumper: "RightBumper",
	GamepadLeftTrigger: "LeftTrigger", GamepadRightTrigger: "RightTrigger",
	GamepadBack: "Back", GamepadStart: "Start", GamepadLeftStick: "LeftStick", GamepadRightStick: "RightStick",
	GamepadUp: "Up", GamepadDown: "Down", GamepadLeft: "Left", GamepadRight: "Right", GamepadGuide: "Guide",
}

func (b GamepadButton) String() string {
	if int(b) < len(gamepadButtonNames) && gamepadButtonNames[b] != "" {
		return gamepadButtonNames[b]
	}
	return "GamepadButton(" + strconv.Itoa(int(b)) + ")"
}

// GamepadAxis names an axis of the standard gamepad layout: the two sticks, each two axes, and
// the two triggers' travel.
type GamepadAxis uint8

// The axes of the standard layout. A stick's axes go from -AxisMax (left, up) to AxisMax
// (right, down), as the W3C standard mapping's do; a trigger's from 0 (released) to AxisMax
// (held fully).
const (
	GamepadLeftX GamepadAxis = iota + 1
	GamepadLeftY
	GamepadRightX
	GamepadRightY
	GamepadLeftTriggerAxis
	GamepadRightTriggerAxis

	// GamepadAxes is the number of axes of the standard layout.
	GamepadAxes = int(GamepadRightTriggerAxis)
)

var gamepadAxisNames = [...]string{
	GamepadLeftX: "LeftX", GamepadLeftY: "LeftY", GamepadRightX: "RightX", GamepadRightY: "RightY",
	GamepadLeftTriggerAxis: "LeftTriggerAxis", GamepadRightTriggerAxis: "RightTriggerAxis",
}

func (a GamepadAxis) String() string {
	if int(a) < len(gamepadAxisNames) && gamepadAxisNames[a] != "" {
		return gamepadAxisNames[a]
	}
	return "GamepadAxis(" + strconv.Itoa(int(a)) + ")"
}

// AxisMax is the value of an axis held fully right, down or in: a float of 1.0 from a driver.
const AxisMax = 32767

// QuantizeAxis turns an axis position from a driver, a float from -1 to 1, into the integer that
// Input carries: round(v × AxisMax), clamped to ±AxisMax, NaN as 0. Backends call it once, where
// the float is read; from there on the position is an integer, which a recording holds exactly
// and which two machines of a networked game read alike (a float computed again on each could
// differ in its last bit between machines and make their simulations diverge). The steps are
// 1/32767, finer than any gamepad's sensor.
func QuantizeAxis(v float64) int16 {
	switch {
	case v != v:
		return 0
	case v >= 1:
		return AxisMax
	case v <= -1:
		return -AxisMax
	}
	return int16(math.Round(v * AxisMax))
}

// AxisFloat returns a GamepadMove's AxisValue as a float from -1 to 1: AxisValue / AxisMax,
// which is the same on every machine.
func (in *Input) AxisFloat() float64 { return float64(in.AxisValue) / AxisMax }

// GamepadState is what a gamepad of the standard layout is doing: whether it is connected,
// which buttons are held and where its axes are. Backends poll their gamepads into one a frame
// and turn what changed into inputs with AppendGamepadInputs; a game can follow a gamepad from
// its inputs with Apply. The zero value is a gamepad not connected.
type GamepadState struct {
	Connected bool
	// Buttons holds bit b-1 while button b is held.
	Buttons uint32
	// Axes holds axis a's position, quantised (QuantizeAxis), at index a-1.
	Axes [GamepadAxes]int16
}

// Pressed reports whether b is held.
func (s *GamepadState) Pressed(b GamepadButton) bool {
	return b >= 1 && int(b) <= GamepadButtons && s.Buttons&(1<<(b-1)) != 0
}

// Axis returns a's position, 0 for an axis not of the standard layout.
func (s *GamepadState) Axis(a GamepadAxis) int16 {
	if a < 1 || int(a) > GamepadAxes {
		return 0
	}
	return s.Axes[a-1]
}

// SetButton sets whether b is held. A button not of the standard layout is ignored.
func (s *GamepadState) SetButton(b GamepadButton, down bool) {
	if b < 1 || int(b) > GamepadButtons {
		return
	}
	if down {
		s.Buttons |= 1 << (b - 1)
	} else {
		s.Buttons &^= 1 << (b - 1)
	}
}

// SetAxis sets a's position from a driver's float, quantised with QuantizeAxis. An axis not of
// the standard layout is ignored.
func (s *GamepadState) SetAxis(a GamepadAxis, v float64) {
	if a < 1 || int(a) > GamepadAxes {
		return
	}
	s.Axes[a-1] = QuantizeAxis(v)
}

// Apply changes s as in, an input of s's gamepad, says; other inputs leave it as it is. From
// the zero state, applying a gamepad's inputs in order gives its state after the last.
func (s *GamepadState) Apply(in *Input) {
	switch in.Kind {
	case GamepadConnect:
		*s = GamepadState{Connected: true}
	case GamepadDisconnect:
		*s = GamepadState{}
	case GamepadPress, GamepadRelease:
		s.SetButton(in.PadButton, in.Kind == GamepadPress)
	case GamepadMove:
		if in.Axis >= 1 && int(in.Axis) <= GamepadAxes {
			s.Axes[in.Axis-1] = in.AxisValue
		}
	}
}

// AppendGamepadInputs appends to dst the inputs that take gamepad id from prev to next, and
// returns the extended slice: a GamepadConnect if it was connected, then its buttons released,
// its buttons pressed and its axes moved, each in the order of their values; if it was
// disconnected, its held buttons released and its axes moved to 0, then a GamepadDisconnect. A
// state that is not connected has no buttons or axes: those of next are ignored when it is not
// connected. Applied in order to prev (GamepadState.Apply), the inputs give next. It allocates
// only to grow dst.
func AppendGamepadInputs(dst []Input, id GamepadID, prev, next *GamepadState) []Input {
	var from, to GamepadState
	if prev.Connected {
		from = *prev
	}
	if next.Connected {
		to = *next
	}
	if !from.Connected && !to.Connected {
		return dst
	}
	if !from.Connected {
		dst = append(dst, Input{Kind: GamepadConnect, Gamepad: id})
	}
	mask := uint32(1)<<GamepadButtons - 1
	from.Buttons &= mask
	to.Buttons &= mask
	for up := from.Buttons &^ to.Buttons; up != 0; up &= up - 1 {
		dst = append(dst, Input{Kind: GamepadRelease, Gamepad: id, PadButton: GamepadButton(bits.TrailingZeros32(up) + 1)})
	}
	for down := to.Buttons &^ from.Buttons; down != 0; down &= down - 1 {
		dst = append(dst, Input{Kind: GamepadPress, Gamepad: id, PadButton: GamepadButton(bits.TrailingZeros32(down) + 1)})
	}
	for i := range to.Axes {
		if to.Axes[i] != from.Axes[i] {
			dst = append(dst, Input{Kind: GamepadMove, Gamepad: id, Axis: GamepadAxis(i + 1), AxisValue: to.Axes[i]})
		}
	}
	if !to.Connected {
		dst = append(dst, Input{Kind: GamepadDisconnect, Gamepad: id})
	}
	return dst
}
