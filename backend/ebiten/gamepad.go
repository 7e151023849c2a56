package ebiten

import (
	"slices"

	"github.com/gameloop-go/gameloop"
	ebiten "github.com/hajimehoshi/ebiten/v2"
)

// padSource is what the gamepad reader needs of Ebitengine: the connected gamepads and, for
// those of the standard layout, their buttons and axes. ebitenPads reads Ebitengine's; tests
// give the reader scripted gamepads, since these machines have none.
type padSource interface {
	// appendIDs appends the ids of the gamepads connected now.
	appendIDs(buf []ebiten.GamepadID) []ebiten.GamepadID
	// standard reports whether the gamepad has the standard layout.
	standard(id ebiten.GamepadID) bool
	// state reads the gamepad of the standard layout into s, which the caller has cleared
	// but for Connected.
	state(id ebiten.GamepadID, s *gameloop.GamepadState)
}

// ebitenPads reads Ebitengine's standard gamepad API.
type ebitenPads struct{}

func (ebitenPads) appendIDs(buf []ebiten.GamepadID) []ebiten.GamepadID {
	return ebiten.AppendGamepadIDs(buf)
}

func (ebitenPads) standard(id ebiten.GamepadID) bool {
	return ebiten.IsStandardGamepadLayoutAvailable(id)
}

// Ebitengine's standard buttons are the W3C standard mapping's, numbered from 0: the
// gameloop.GamepadButton of button b is b+1.
const (
	_ = uint(gameloop.GamepadSouth-1) - uint(ebiten.StandardGamepadButtonRightBottom) // both the first
	_ = uint(ebiten.StandardGamepadButtonRightBottom) - uint(gameloop.GamepadSouth-1)
	_ = uint(gameloop.GamepadGuide-1) - uint(ebiten.StandardGamepadButtonCenterCenter) // both the last
	_ = uint(ebiten.StandardGamepadButtonCenterCenter) - uint(gameloop.GamepadGuide-1)
)

func (ebitenPads) state(id ebiten.GamepadID, s *gameloop.GamepadState) {
	for b := ebiten.StandardGamepadButtonRightBottom; b <= ebiten.StandardGamepadButtonMax; b++ {
		s.SetButton(gameloop.GamepadButton(b+1), ebiten.IsStandardGamepadButtonPressed(id, b))
	}
	s.SetAxis(gameloop.GamepadLeftX, ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisLeftStickHorizontal))
	s.SetAxis(gameloop.GamepadLeftY, ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisLeftStickVertical))
	s.SetAxis(gameloop.GamepadRightX, ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisRightStickHorizontal))
	s.SetAxis(gameloop.GamepadRightY, ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisRightStickVertical))
	s.SetAxis(gameloop.GamepadLeftTriggerAxis, ebiten.StandardGamepadButtonValue(id, ebiten.StandardGamepadButtonFrontBottomLeft))
	s.SetAxis(gameloop.GamepadRightTriggerAxis, ebiten.StandardGamepadButtonValue(id, ebiten.StandardGamepadButtonFrontBottomRight))
}

// gamepads turns the gamepads Ebitengine reports into input, once a frame. Each gamepad of the
// standard layout gets the lowest free slot (gameloop.GamepadID) when it appears and keeps it
// until it goes; gamepads of other layouts, and any beyond gameloop.MaxGamepads, are not
// reported. It allocates only to grow its list of ids, to the most gamepads connected at once.
type gamepads struct {
	ids   []ebiten.GamepadID
	slots [gameloop.MaxGamepads]padSlot
	next  gameloop.GamepadState // the state read now, kept here so that reading it through padSource does not allocate
}

// padSlot is a slot's gamepad and its state as last reported.
type padSlot struct {
	id    ebiten.GamepadID
	state gameloop.GamepadState // state.Connected: the slot is taken
}

// appendInput appends the input that takes the game from the gamepads' last reported states to
// their states now, slot by slot (gameloop.AppendGamepadInputs).
func (p *gamepads) appendInput(buf []gameloop.Input, src padSource) []gameloop.Input {
	p.ids = src.appendIDs(p.ids[:0])
	// Gamepads gone, or no longer of the standard layout, leave their slots.
	for i := range p.slots {
		s := &p.slots[i]
		if s.state.Connected && (!slices.Contains(p.ids, s.id) || !src.standard(s.id)) {
			p.next = gameloop.GamepadState{}
			buf = gameloop.AppendGamepadInputs(buf, gameloop.GamepadID(i), &s.state, &p.next)
			s.state = p.next
		}
	}
	// New gamepads take the lowest free slots, in the order Ebitengine lists them.
	for _, id := range p.ids {
		if p.slotOf(id) >= 0 || !src.standard(id) {
			continue
		}
		for i := range p.slots {
			if !p.slots[i].state.Connected {
				p.slots[i] = padSlot{id: id}
				buf = append(buf, gameloop.Input{Kind: gameloop.GamepadConnect, Gamepad: gameloop.GamepadID(i)})
				p.slots[i].state.Connected = true
				break
			}
		}
	}
	for i := range p.slots {
		s := &p.slots[i]
		if !s.state.Connected {
			continue
		}
		p.next = gameloop.GamepadState{Connected: true}
		src.state(s.id, &p.next)
		buf = gameloop.AppendGamepadInputs(buf, gameloop.GamepadID(i), &s.state, &p.next)
		s.state = p.next
	}
	return buf
}

// slotOf returns the slot of gamepad id, -1 if it has none.
func (p *gamepads) slotOf(id ebiten.GamepadID) int {
	for i := range p.slots {
		if p.slots[i].state.Connected && p.slots[i].id == id {
			return i
		}
	}
	return -1
}
