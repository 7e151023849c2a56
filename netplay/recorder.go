package netplay

import (
	"fmt"
	"io"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// recorder records a session's confirmed inputs and checksums through package replay: each
// player's input of each tick as a player input record of 1+Size bytes, the input's Status then
// the input as the Codec encodes it, and the checksum of every tick.
type recorder[I comparable] struct {
	r      *replay.Recorder
	update gameloop.Update
	data   []byte
}

func newRecorder[I comparable](w io.Writer, tickRate, size int, name string, meta []byte) (*recorder[I], error) {
	r, err := replay.NewRecorder(w, tickRate, &replay.RecordOptions{Name: name, Meta: meta, PlayerInputs: true})
	if err != nil {
		return nil, err
	}
	return &recorder[I]{r: r, data: make([]byte, 1+size)}, nil
}

// input records player h's input for tick t.
func (rec *recorder[I]) input(t uint64, h int, status Status, raw []byte) error {
	rec.data[0] = byte(status)
	if status == Disconnected {
		clear(rec.data[1:])
	} else {
		copy(rec.data[1:], raw)
	}
	return rec.r.PlayerInput(t, h, rec.data)
}

// tick records that tick t ran, and the checksum of the state after it.
func (rec *recorder[I]) tick(t, sum uint64) error {
	rec.update.Tick = t
	if err := rec.r.Tick(&rec.update, nil); err != nil {
		return err
	}
	return rec.r.Checksum(t, sum)
}

func (rec *recorder[I]) close() error { return rec.r.Close() }

// ReplayGame plays a recording that a session made (Config.Record) into a Game, for
// replay.Play: each tick it steps the game with every player's recorded input and status,
// and sums up its state with a Save into slot 0, so that the replay compares the checksum of
// every tick with the recorded one. A replay of the recording of a desync reproduces it: the
// first tick whose checksum differs between two peers' recordings, or between a recording and
// its replay on another build or machine, is where the simulations went apart.
//
//	res, err := replay.Play(ctx, f, netplay.NewReplayGame(game, codec, players), nil)
type ReplayGame[I comparable] struct {
	g      Game[I]
	codec  Codec[I]
	inputs []PlayerInput[I]
}

// NewReplayGame returns a ReplayGame of g, for a recording of the given number of players
// whose inputs codec decodes.
func NewReplayGame[I comparable](g Game[I], codec Codec[I], players int) *ReplayGame[I] {
	return &ReplayGame[I]{g: g, codec: codec, inputs: make([]PlayerInput[I], players)}
}

// PlayerInput takes a player's recorded input (replay.PlayerInputHandler).
func (rg *ReplayGame[I]) PlayerInput(tick uint64, player int, data []byte) error {
	if player < 0 || player >= len(rg.inputs) {
		return fmt.Errorf("netplay: replay: input of player %d in a game of %d players", player, len(rg.inputs))
	}
	if len(data) != 1+rg.codec.Size() || Status(data[0]) > Disconnected {
		return fmt.Errorf("netplay: replay: tick %d: player %d's input is not a status and %d bytes: %x", tick, player, rg.codec.Size(), data)
	}
	in := PlayerInput[I]{Status: Status(data[0])}
	if in.Status != Disconnected {
		in.Input = rg.codec.Get(data[1:])
	}
	rg.inputs[player] = in
	return nil
}

// Update steps the game with the inputs of u.Tick (gameloop.Game).
func (rg *ReplayGame[I]) Update(u *gameloop.Update) error {
	return rg.g.Step(u.Tick, rg.inputs)
}

// Checksum saves the game's state into slot 0 and returns its checksum (replay.Checksummer).
func (rg *ReplayGame[I]) Checksum() uint64 { return rg.g.Save(0) }
