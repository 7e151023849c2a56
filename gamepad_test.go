package gameloop

import (
	"math"
	"slices"
	"testing"
	"unsafe"
)

// The gamepad fields fit in what was padding: an Input is still 64 bytes, which recordings and
// the loop's input buffers hold by the thousand.
func TestInputSize(t *testing.T) {
	if n := unsafe.Sizeof(Input{}); n != 64 {
		t.Fatalf("Input is %d bytes, want 64", n)
	}
}

func TestQuantizeAxis(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int16
	}{
		{0, 0}, {1, AxisMax}, {-1, -AxisMax}, {2, AxisMax}, {-7, -AxisMax},
		{math.Inf(1), AxisMax}, {math.Inf(-1), -AxisMax}, {math.NaN(), 0},
		{0.5, 16384}, {-0.5, -16384}, {1.0 / AxisMax, 1}, {0.4 / AxisMax, 0}, {math.Copysign(0, -1), 0},
	} {
		if got := QuantizeAxis(c.v); got != c.want {
			t.Errorf("QuantizeAxis(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	// Every value survives the trip through AxisFloat.
	for v := -AxisMax; v <= AxisMax; v++ {
		in := Input{AxisValue: int16(v)}
		if got := QuantizeAxis(in.AxisFloat()); got != int16(v) {
			t.Fatalf("QuantizeAxis(AxisFloat(%d)) = %d", v, got)
		}
	}
}

func TestGamepadInputsOrder(t *testing.T) {
	var none, a GamepadState
	a.Connected = true
	a.SetButton(GamepadSouth, true)
	a.SetButton(GamepadGuide, true)
	a.SetAxis(GamepadLeftX, -0.25)
	a.SetAxis(GamepadRightTriggerAxis, 1)
	got := AppendGamepadInputs(nil, 3, &none, &a)
	want := []Input{
		{Kind: GamepadConnect, Gamepad: 3},
		{Kind: GamepadPress, Gamepad: 3, PadButton: GamepadSouth},
		{Kind: GamepadPress, Gamepad: 3, PadButton: GamepadGuide},
		{Kind: GamepadMove, Gamepad: 3, Axis: GamepadLeftX, AxisValue: -8192},
		{Kind: GamepadMove, Gamepad: 3, Axis: GamepadRightTriggerAxis, AxisValue: AxisMax},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("connect: got %v, want %v", got, want)
	}
	b := a
	b.SetButton(GamepadSouth, false)
	b.SetButton(GamepadEast, true)
	got = AppendGamepadInputs(nil, 3, &a, &b)
	want = []Input{
		{Kind: GamepadRelease, Gamepad: 3, PadButton: GamepadSouth},
		{Kind: GamepadPress, Gamepad: 3, PadButton: GamepadEast},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("change: got %v, want %v", got, want)
	}
	got = AppendGamepadInputs(nil, 3, &b, &none)
	want = []Input{
		{Kind: GamepadRelease, Gamepad: 3, PadButton: GamepadEast},
		{Kind: GamepadRelease, Gamepad: 3, PadButton: GamepadGuide},
		{Kind: GamepadMove, Gamepad: 3, Axis: GamepadLeftX},
		{Kind: GamepadMove, Gamepad: 3, Axis: GamepadRightTriggerAxis},
		{Kind: GamepadDisconnect, Gamepad: 3},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("disconnect: got %v, want %v", got, want)
	}
	if got := AppendGamepadInputs(nil, 3, &b, &b); len(got) != 0 {
		t.Fatalf("no change: got %v", got)
	}
}

func TestGamepadInputsAllocs(t *testing.T) {
	var prev, next GamepadState
	next.Connected = true
	next.Buttons = 1<<GamepadButtons - 1
	buf := make([]Input, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendGamepadInputs(buf[:0], 0, &prev, &next)
		buf = AppendGamepadInputs(buf, 0, &next, &prev)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// FuzzGamepadInputs checks AppendGamepadInputs against Apply: the inputs from any state to any
// other, applied to the first, give the second (with what a disconnected pad holds cleared);
// none of them is for another gamepad; a connect comes first and a disconnect last; each button
// and axis changes at most once.
func FuzzGamepadInputs(f *testing.F) {
	f.Add(false, uint32(0), int64(0), true, uint32(5), int64(77), uint8(2))
	f.Add(true, uint32(0xffffffff), int64(-1), false, uint32(1), int64(3), uint8(15))
	f.Add(true, uint32(3), int64(1<<40), true, uint32(6), int64(-1<<40), uint8(0))
	f.Fuzz(func(t *testing.T, pc bool, pb uint32, pa int64, nc bool, nb uint32, na int64, id uint8) {
		mk := func(c bool, b uint32, a int64) GamepadState {
			s := GamepadState{Connected: c, Buttons: b}
			for i := range s.Axes {
				s.Axes[i] = int16(a >> (10 * i))
			}
			return s
		}
		prev, next := mk(pc, pb, pa), mk(nc, nb, na)
		ins := AppendGamepadInputs(nil, GamepadID(id), &prev, &next)
		norm := func(s GamepadState) GamepadState {
			if !s.Connected {
				return GamepadState{}
			}
			s.Buttons &= 1<<GamepadButtons - 1
			return s
		}
		got := norm(prev)
		seen := map[[2]int]bool{}
		for i, in := range ins {
			if in.Gamepad != GamepadID(id) {
				t.Fatalf("input %v for gamepad %d", in, id)
			}
			switch in.Kind {
			case GamepadConnect:
				if i != 0 {
					t.Fatalf("connect at %d of %v", i, ins)
				}
			case GamepadDisconnect:
				if i != len(ins)-1 {
					t.Fatalf("disconnect at %d of %v", i, ins)
				}
			case GamepadPress, GamepadRelease:
				k := [2]int{0, int(in.PadButton)}
				if seen[k] {
					t.Fatalf("button %v twice in %v", in.PadButton, ins)
				}
				seen[k] = true
			case GamepadMove:
				k := [2]int{1, int(in.Axis)}
				if seen[k] {
					t.Fatalf("axis %v twice in %v", in.Axis, ins)
				}
				seen[k] = true
			default:
				t.Fatalf("input %v", in)
			}
			got.Apply(&in)
		}
		if want := norm(next); got != want {
			t.Fatalf("from %+v to %+v: inputs %v give %+v", prev, next, ins, got)
		}
		if len(ins) == 0 != (norm(prev) == norm(next)) {
			t.Fatalf("from %+v to %+v: inputs %v", prev, next, ins)
		}
	})
}
