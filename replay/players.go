package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Player inputs: the inputs of the players of a networked game (package netplay), each a
// fixed-size value the game defines, one a player a tick. A peer records the confirmed inputs
// of every player, so that a desync between peers can be replayed on one machine.

const (
	// MaxPlayers is the most players whose inputs a recording holds: players 0 to 7.
	MaxPlayers = 8

	// MaxPlayerInputSize is the largest input of one player for one tick, in bytes.
	MaxPlayerInputSize = 64

	// versionPlayers is the first version of the format that holds player inputs.
	versionPlayers = 2

	// kindPlayerInput is the record of one player's input for a tick.
	kindPlayerInput byte = 7

	maxPlayerInputRecord = 2 + binary.MaxVarintLen64 + 1 + MaxPlayerInputSize
)

// PlayerInput is the input of one player (0 to MaxPlayers-1) for one tick: Data, 1 to
// MaxPlayerInputSize bytes, is the fixed-size input the game defines, the same size for every
// tick of the player. A player's input holds from its Tick until the player's next
// PlayerInput: a recording stores a player's input only when it differs from the player's
// previous one.
type PlayerInput struct {
	Tick   uint64
	Player int
	Data   []byte
}

// PlayerInputHandler is implemented by a game that takes player inputs: Play calls PlayerInput
// with each recorded player input, before the update of its tick (after the tick's
// gameloop.Input, if any), in increasing order of player. A player's input holds until its next
// PlayerInput (the recording stores changes only), so the game keeps each player's last one.
// data is valid only during the call.
type PlayerInputHandler interface {
	PlayerInput(tick uint64, player int, data []byte) error
}

// lastPlayerInputs is what a Recorder remembers of each player's inputs, to record changes only
// and to check that every input of a player has the same size.
type lastPlayerInputs struct {
	data   [MaxPlayers][MaxPlayerInputSize]byte
	size   [MaxPlayers]int // 0 until the player's first input
	tick   uint64          // the tick of the last player input given
	player int             // the last player given for that tick
}

// PlayerInput records data as player's input for tick, the tick after the last one recorded
// with Tick, as Input does; within a tick, players come in increasing order, once each. Every
// input of a player has the same size, 1 to MaxPlayerInputSize bytes. An input equal to the
// player's previous one is not written (a replay keeps it): call PlayerInput for every player
// every tick, and the recording holds only the changes. It needs RecordOptions.PlayerInputs.
func (r *Recorder) PlayerInput(tick uint64, player int, data []byte) error {
	if err := r.usable(); err != nil {
		return err
	}
	p := r.players
	switch {
	case p == nil:
		return r.fail(errors.New("replay: PlayerInput on a Recorder made without RecordOptions.PlayerInputs"))
	case tick != r.lastTick+1:
		return r.fail(fmt.Errorf("replay: input of player %d for tick %d, but the last tick recorded was %d: "+
			"record each tick's player inputs before calling Tick for it", player, tick, r.lastTick))
	case player < 0 || player >= MaxPlayers:
		return r.fail(fmt.Errorf("replay: input of player %d for tick %d: players are 0 to %d", player, tick, MaxPlayers-1))
	case p.tick == tick && player <= p.player:
		return r.fail(fmt.Errorf("replay: input of player %d for tick %d after player %d's: players come in increasing order, once each",
			player, tick, p.player))
	case len(data) < 1 || len(data) > MaxPlayerInputSize:
		return r.fail(fmt.Errorf("replay: input of player %d for tick %d is %d bytes, not 1 to %d", player, tick, len(data), MaxPlayerInputSize))
	case p.size[player] != 0 && len(data) != p.size[player]:
		return r.fail(fmt.Errorf("replay: input of player %d for tick %d is %d bytes, but its earlier inputs were %d", player, tick, len(data), p.size[player]))
	}
	p.tick, p.player = tick, player
	if p.size[player] != 0 && bytes.Equal(p.data[player][:len(data)], data) {
		return nil
	}
	p.size[player] = len(data)
	copy(p.data[player][:], data)
	if err := r.enc.playerInput(tick, r.lastTick, player, data); err != nil {
		return r.fail(err)
	}
	return nil
}

// playerInput appends a player input record; sofar is the number of ticks run.
func (e *encoder) playerInput(tick, sofar uint64, player int, data []byte) error {
	if err := e.room(maxPlayerInputRecord, sofar); err != nil {
		return err
	}
	e.body = binary.AppendUvarint(e.body[:0], tick-e.ran)
	e.body = append(e.body, byte(player))
	e.body = append(e.body, data...)
	e.frame = appendRecord(e.frame, kindPlayerInput, e.body)
	return nil
}

// playerOrder is what the decoder checks player input records against.
type playerOrder struct {
	tick   uint64 // the tick of the last player input, 0 before the first
	player int    // the player of the last player input
	size   [MaxPlayers]int
}

func (d *decoder) playerInput(f *fields, at int64) error {
	if d.version < versionPlayers {
		return d.errorf(at, ErrCorrupt, "player input record in a recording of version %d, which holds none", d.version)
	}
	tickAt := f.at()
	tick, err := d.tick(f)
	if err != nil {
		return err
	}
	o := &d.players
	switch {
	case tick == d.ran:
		return d.errorf(tickAt, ErrCorrupt, "player input for tick %d, which has already run", tick)
	case tick < o.tick:
		return d.errorf(tickAt, ErrCorrupt, "player input for tick %d after one for tick %d", tick, o.tick)
	case tick <= d.lastRate:
		return d.errorf(tickAt, ErrCorrupt, "player input for tick %d after the tick rate changed for tick %d", tick, d.lastRate)
	}
	playerAt := f.at()
	b, err := f.byte("player")
	if err != nil {
		return err
	}
	player := int(b)
	switch {
	case player >= MaxPlayers:
		return d.errorf(playerAt, ErrCorrupt, "player %d is not 0 to %d", player, MaxPlayers-1)
	case tick == o.tick && player <= o.player:
		return d.errorf(playerAt, ErrCorrupt, "input of player %d for tick %d after player %d's", player, tick, o.player)
	}
	dataAt := f.at()
	data, err := f.bytes(len(f.b)-f.pos, "data")
	if err != nil {
		return err
	}
	switch {
	case len(data) < 1 || len(data) > MaxPlayerInputSize:
		return d.errorf(dataAt, ErrCorrupt, "input of player %d is %d bytes, not 1 to %d", player, len(data), MaxPlayerInputSize)
	case o.size[player] != 0 && len(data) != o.size[player]:
		return d.errorf(dataAt, ErrCorrupt, "input of player %d is %d bytes, but its earlier inputs were %d", player, len(data), o.size[player])
	}
	o.tick, o.player, o.size[player] = tick, player, len(data)
	d.minRan = max(d.minRan, tick-1)
	d.rec.PlayerInputs = append(d.rec.PlayerInputs, PlayerInput{Tick: tick, Player: player, Data: bytes.Clone(data)})
	return nil
}

// checkPlayerInputs reports what, if anything, makes rec's player inputs impossible to encode.
func (rec *Recording) checkPlayerInputs() error {
	var o playerOrder
	o.player = -1
	for i, in := range rec.PlayerInputs {
		switch {
		case in.Tick == 0 || in.Tick < o.tick:
			return fmt.Errorf("replay: player input %d is for tick %d, after one for tick %d", i, in.Tick, o.tick)
		case in.Tick-1 > rec.Ticks:
			return fmt.Errorf("replay: player input %d is for tick %d, beyond the recording's %d ticks", i, in.Tick, rec.Ticks)
		case in.Player < 0 || in.Player >= MaxPlayers:
			return fmt.Errorf("replay: player input %d is of player %d, not 0 to %d", i, in.Player, MaxPlayers-1)
		case in.Tick == o.tick && in.Player <= o.player:
			return fmt.Errorf("replay: player input %d is of player %d for tick %d, after player %d's", i, in.Player, in.Tick, o.player)
		case len(in.Data) < 1 || len(in.Data) > MaxPlayerInputSize:
			return fmt.Errorf("replay: player input %d is %d bytes, not 1 to %d", i, len(in.Data), MaxPlayerInputSize)
		case o.size[in.Player] != 0 && len(in.Data) != o.size[in.Player]:
			return fmt.Errorf("replay: player input %d, of player %d, is %d bytes, but its earlier inputs were %d", i, in.Player, len(in.Data), o.size[in.Player])
		}
		o.tick, o.player, o.size[in.Player] = in.Tick, in.Player, len(in.Data)
	}
	return nil
}

// version returns the version of the format that holds rec: the first to hold all it has.
func (rec *Recording) version() uint16 {
	for i := range rec.Inputs {
		in := &rec.Inputs[i]
		if in.Kind > maxInputKindV1 || in.Gamepad != 0 || in.PadButton != 0 || in.Axis != 0 || in.AxisValue != 0 {
			return versionGamepads
		}
	}
	if len(rec.PlayerInputs) > 0 {
		return versionPlayers
	}
	return 1
}

// deliverPlayerInputs delivers the recorded player inputs for tick, which is about to run.
func (p *player) deliverPlayerInputs(tick uint64) error {
	for p.nextPlayer < len(p.rec.PlayerInputs) && p.rec.PlayerInputs[p.nextPlayer].Tick <= tick {
		in := p.rec.PlayerInputs[p.nextPlayer]
		p.nextPlayer++
		switch {
		case in.Tick != tick:
			return fmt.Errorf("replay: input of player %d recorded for tick %d not delivered before it", in.Player, in.Tick)
		case p.playerInput == nil:
			return errors.New("replay: the recording has player inputs, but the game has no PlayerInput method (see PlayerInputHandler)")
		}
		p.res.PlayerInputs++
		if err := p.playerInput.PlayerInput(in.Tick, in.Player, in.Data); err != nil {
			return err
		}
	}
	return nil
}
