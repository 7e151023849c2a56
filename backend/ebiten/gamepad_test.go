package ebiten

import (
	"slices"
	"testing"

	"github.com/gameloop-go/gameloop"
	ebiten "github.com/hajimehoshi/ebiten/v2"
)

// scriptedPads is a set of gamepads a test connects, presses and disconnects, as Ebitengine
// would report real ones.
type scriptedPads struct {
	ids    []ebiten.GamepadID
	other  map[ebiten.GamepadID]bool // not of the standard layout
	states map[ebiten.GamepadID]gameloop.GamepadState
}

func (s *scriptedPads) appendIDs(buf []ebiten.GamepadID) []ebiten.GamepadID {
	return append(buf, s.ids...)
}
func (s *scriptedPads) standard(id ebiten.GamepadID) bool { return !s.other[id] }
func (s *scriptedPads) state(id ebiten.GamepadID, st *gameloop.GamepadState) {
	c := s.states[id]
	st.Buttons, st.Axes = c.Buttons, c.Axes
}

func (s *scriptedPads) connect(id ebiten.GamepadID) {
	s.ids = append(s.ids, id)
}

func (s *scriptedPads) disconnect(id ebiten.GamepadID) {
	s.ids = slices.DeleteFunc(s.ids, func(x ebiten.GamepadID) bool { return x == id })
	delete(s.states, id)
}

// TestGamepadSlots: gamepads take the lowest free slots and keep them, their changes come as
// inputs, one that goes releases what it held before its disconnect, and a gamepad not of the
// standard layout is not reported.
func TestGamepadSlots(t *testing.T) {
	src := &scriptedPads{other: map[ebiten.GamepadID]bool{}, states: map[ebiten.GamepadID]gameloop.GamepadState{}}
	var p gamepads
	frame := func() []gameloop.Input { return p.appendInput(nil, src) }
	want := func(got []gameloop.Input, want ...gameloop.Input) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("got  %v\nwant %v", got, want)
		}
	}
	if got := frame(); len(got) != 0 {
		t.Fatalf("no gamepads: %v", got)
	}
	src.connect(7)
	src.connect(3)
	src.other[9] = true
	src.connect(9)
	want(frame(),
		gameloop.Input{Kind: gameloop.GamepadConnect, Gamepad: 0},
		gameloop.Input{Kind: gameloop.GamepadConnect, Gamepad: 1})
	var held gameloop.GamepadState
	held.SetButton(gameloop.GamepadSouth, true)
	held.SetAxis(gameloop.GamepadLeftTriggerAxis, 0.5)
	src.states[3] = held
	want(frame(),
		gameloop.Input{Kind: gameloop.GamepadPress, Gamepad: 1, PadButton: gameloop.GamepadSouth},
		gameloop.Input{Kind: gameloop.GamepadMove, Gamepad: 1, Axis: gameloop.GamepadLeftTriggerAxis, AxisValue: 16384})
	want(frame())
	// Gamepad 7 goes: slot 0 is free again, and the next new gamepad takes it; 3 keeps slot 1.
	src.disconnect(7)
	want(frame(), gameloop.Input{Kind: gameloop.GamepadDisconnect, Gamepad: 0})
	src.disconnect(3)
	src.connect(4)
	want(frame(),
		gameloop.Input{Kind: gameloop.GamepadRelease, Gamepad: 1, PadButton: gameloop.GamepadSouth},
		gameloop.Input{Kind: gameloop.GamepadMove, Gamepad: 1, Axis: gameloop.GamepadLeftTriggerAxis},
		gameloop.Input{Kind: gameloop.GamepadDisconnect, Gamepad: 1},
		gameloop.Input{Kind: gameloop.GamepadConnect, Gamepad: 0})
	// More gamepads than slots: the first MaxGamepads are reported.
	for id := range ebiten.GamepadID(40) {
		if id != 4 {
			src.connect(100 + id)
		}
	}
	if got := frame(); len(got) != gameloop.MaxGamepads-1 {
		t.Fatalf("%d connects with one slot of %d taken: %v", len(got), gameloop.MaxGamepads, got)
	}
}

func TestGamepadsAllocateNothing(t *testing.T) {
	src := &scriptedPads{states: map[ebiten.GamepadID]gameloop.GamepadState{}}
	src.connect(1)
	src.connect(2)
	var p gamepads
	buf := make([]gameloop.Input, 0, 64)
	buf = p.appendInput(buf, src)
	var s gameloop.GamepadState
	if n := testing.AllocsPerRun(100, func() {
		s.Buttons ^= 1
		src.states[1] = s
		buf = p.appendInput(buf[:0], src)
	}); n != 0 {
		t.Fatalf("%v allocations a frame", n)
	}
}
