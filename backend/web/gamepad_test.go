package web

import (
	"math"
	"reflect"
	"testing"

	"github.com/gameloop-go/gameloop"
)

// pad returns a connected gamepad of the standard mapping, nothing held, the sticks centred.
func pad() PolledGamepad { return PolledGamepad{Connected: true, Standard: true} }

func TestPolledGamepadState(t *testing.T) {
	held := pad()
	held.Pressed[0] = true                       // South
	held.Pressed[7], held.Values[7] = true, 0.75 // the right trigger, three quarters in
	held.Values[6] = 0.25                        // the left trigger, a quarter in: not pressed
	held.Pressed[16] = true                      // Guide
	held.Axes = [4]float64{-0.5, 1, 1.5, math.NaN()}
	var want gameloop.GamepadState
	want.Connected = true
	want.SetButton(gameloop.GamepadSouth, true)
	want.SetButton(gameloop.GamepadRightTrigger, true)
	want.SetButton(gameloop.GamepadGuide, true)
	want.Axes = [gameloop.GamepadAxes]int16{-16384, gameloop.AxisMax, gameloop.AxisMax, 0, 8192, 24575}

	negative := pad()
	negative.Values[6], negative.Values[7] = -0.5, math.Inf(-1) // a driver's noise below released

	notStandard := held
	notStandard.Standard = false
	gone := held
	gone.Connected = false

	for _, tt := range []struct {
		name string
		p    PolledGamepad
		want gameloop.GamepadState
	}{
		{"an empty slot", PolledGamepad{}, gameloop.GamepadState{}},
		{"connected, nothing held", pad(), gameloop.GamepadState{Connected: true}},
		{"buttons, triggers and sticks", held, want},
		{"triggers below released", negative, gameloop.GamepadState{Connected: true}},
		{"not the standard mapping", notStandard, gameloop.GamepadState{}},
		{"connected false", gone, gameloop.GamepadState{}},
	} {
		if got := tt.p.State(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Polls of a slot give the inputs of what changed, and applied in order the inputs follow the
// polls; a gamepad that leaves has its buttons released and its axes zeroed before it is
// disconnected.
func TestGamepadSlotsPoll(t *testing.T) {
	south := pad()
	south.Pressed[0] = true
	stick := south
	stick.Axes[0] = -0.5
	east := pad()
	east.Pressed[1] = true
	east.Axes[1] = 0.25
	odd := east
	odd.Standard = false

	press := func(b gameloop.GamepadButton) gameloop.Input {
		return gameloop.Input{Kind: gameloop.GamepadPress, Gamepad: 2, PadButton: b}
	}
	release := func(b gameloop.GamepadButton) gameloop.Input {
		return gameloop.Input{Kind: gameloop.GamepadRelease, Gamepad: 2, PadButton: b}
	}
	move := func(a gameloop.GamepadAxis, v int16) gameloop.Input {
		return gameloop.Input{Kind: gameloop.GamepadMove, Gamepad: 2, Axis: a, AxisValue: v}
	}
	connect := gameloop.Input{Kind: gameloop.GamepadConnect, Gamepad: 2}
	disconnect := gameloop.Input{Kind: gameloop.GamepadDisconnect, Gamepad: 2}

	var slots gamepadSlots
	var followed gameloop.GamepadState // what a game that applies the inputs holds
	for i, tt := range []struct {
		name string
		p    PolledGamepad
		want []gameloop.Input
	}{
		{"nothing there", PolledGamepad{}, nil},
		{"connected with South held", south, []gameloop.Input{connect, press(gameloop.GamepadSouth)}},
		{"the same again", south, nil},
		{"the left stick half left", stick, []gameloop.Input{move(gameloop.GamepadLeftX, -16384)}},
		{"South for East, the stick moved", east, []gameloop.Input{release(gameloop.GamepadSouth), press(gameloop.GamepadEast),
			move(gameloop.GamepadLeftX, 0), move(gameloop.GamepadLeftY, 8192)}},
		{"gone while held", PolledGamepad{}, []gameloop.Input{release(gameloop.GamepadEast), move(gameloop.GamepadLeftY, 0), disconnect}},
		{"back", east, []gameloop.Input{connect, press(gameloop.GamepadEast), move(gameloop.GamepadLeftY, 8192)}},
		{"mapped otherwise", odd, []gameloop.Input{release(gameloop.GamepadEast), move(gameloop.GamepadLeftY, 0), disconnect}},
		{"still mapped otherwise", odd, nil},
	} {
		got := slots.poll(nil, 2, &tt.p)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("poll %d, %s: %v, want %v", i, tt.name, got, tt.want)
		}
		for j := range got {
			followed.Apply(&got[j])
		}
		if want := tt.p.State(); followed != want {
			t.Errorf("poll %d, %s: the inputs applied give %+v, want %+v", i, tt.name, followed, want)
		}
	}
	if got := slots.poll(nil, gameloop.MaxGamepads, &south); got != nil {
		t.Errorf("slot MaxGamepads: %v, want nothing", got)
	}
	if got := slots.poll(nil, -1, &south); got != nil {
		t.Errorf("slot -1: %v, want nothing", got)
	}
}

// A frame's poll of every slot allocates nothing once its buffer has grown.
func TestGamepadPollAllocatesNothing(t *testing.T) {
	var slots gamepadSlots
	a, b := pad(), pad()
	b.Pressed[3], b.Values[7], b.Axes = true, 1, [4]float64{0.1, -0.2, 0.3, -0.4}
	buf := make([]gameloop.Input, 0, 64)
	frame := 0
	n := testing.AllocsPerRun(200, func() {
		buf = buf[:0]
		frame++
		for id := range gameloop.MaxGamepads {
			p := &a
			switch {
			case id == 0 && frame%2 == 0:
				p = &b
			case id > 1:
				p = &PolledGamepad{}
			}
			buf = slots.poll(buf, id, p)
		}
	})
	if n != 0 {
		t.Errorf("a poll of every slot allocates %.1f times, want 0", n)
	}
}
