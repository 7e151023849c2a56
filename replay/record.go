package replay

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/gameloop-go/gameloop"
)

// Checksummer is implemented by a game whose state can be summed up in a number: two runs that
// reach the same state must give the same checksum, and runs that differ should not. A hash
// (FNV-1a, say) of every value that updates change, in a fixed order, is the usual choice.
type Checksummer interface {
	Checksum() uint64
}

// DefaultChecksumEvery is how many ticks apart a Recorder takes checksums when
// RecordOptions.ChecksumEvery is 0: every tick, so that a replay finds the very tick at which it
// went its own way.
const DefaultChecksumEvery = 1

// RecordOptions are the settings of a Recorder. The zero value (or a nil *RecordOptions) is
// ready to use.
type RecordOptions struct {
	// Name identifies the game, such as "bounce"; it is stored in the header, at most
	// MaxNameLen bytes of UTF-8. Empty by default.
	Name string

	// Meta is what a replay needs to start the game in the same state, in a form the game
	// chooses: its random seed, the size of its arena. At most MaxMetaLen bytes.
	Meta []byte

	// ChecksumEvery is how many ticks apart checksums are taken: after every tick whose number
	// is a multiple of it. 0 means DefaultChecksumEvery. A game with much state may want fewer;
	// a replay then reports the first checked tick that differs.
	ChecksumEvery int

	// FlushEvery is how many ticks a chunk may gather before it is written out, which bounds
	// what a crash loses. 0 means the tick rate: one second of game time. A chunk is also
	// written once it holds about 4 KiB, and by Flush and Close.
	FlushEvery int

	// Checksum, if set, sums up the game's state for the Game wrapper, which otherwise uses the
	// game's own Checksum method (see Checksummer), if it has one.
	Checksum func() uint64

	// PlayerInputs makes a recording that can hold player inputs (Recorder.PlayerInput), as
	// a networked game records its players' inputs. Off by default.
	PlayerInputs bool
}

// A Recorder writes a recording: the input a loop delivered with the tick each preceded, and the
// game's checksum after every ChecksumEvery-th tick. It writes to its io.Writer as it goes, in
// chunks, so that a recording cut short by a crash can be read up to its last whole chunk.
//
// Feed it the loop's own events, not the window's input: only the *gameloop.Input the loop
// delivers carries the tick that input was applied at, which is what a replay must reproduce.
// With Loop.Events:
//
//	for ev := range loop.Events(ctx) {
//		var err error
//		switch ev := ev.(type) {
//		case *gameloop.Input:
//			err = errors.Join(rec.Input(ev), game.Input(ev))
//		case *gameloop.Update:
//			err = errors.Join(game.Update(ev), rec.Tick(ev, game.Checksum))
//		}
//		if err != nil { ... }
//	}
//	err := errors.Join(loop.Err(), rec.Close())
//
// With Loop.Run, wrap the game instead: loop.Run(ctx, rec.Game(game)).
//
// A Recorder must be used from one goroutine, the loop's. Its methods return the first error
// met, writing or in the order of calls, from then on.
type Recorder struct {
	enc        *encoder
	every      uint64
	flushEvery uint64
	checksum   func() uint64

	lastTick   uint64 // the last tick recorded by Tick
	tickInputs int    // the inputs recorded since, against MaxInputsPerTick
	rate       int    // the tick rate of the last tick recorded
	chunkStart uint64 // lastTick when the chunk being built was begun
	err        error
	closed     bool

	// players is what PlayerInput remembers; nil unless RecordOptions.PlayerInputs.
	players *lastPlayerInputs
}

// NewRecorder starts a recording of a loop running at tickRate ticks per second (Config.TickRate
// after defaults; Loop.Config().TickRate gives it) and writes its header to w. Close it when the
// loop ends; it does not close w.
//
// Give it the file itself rather than a bufio.Writer: it writes whole chunks, each in one Write,
// and a buffer would hold back what a crash should leave in the file.
func NewRecorder(w io.Writer, tickRate int, opts *RecordOptions) (*Recorder, error) {
	var o RecordOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case w == nil:
		return nil, errors.New("replay: NewRecorder: the io.Writer is nil")
	case tickRate <= 0 || tickRate > gameloop.MaxRate:
		return nil, fmt.Errorf("replay: tick rate %d out of range: must be between 1 and %d", tickRate, gameloop.MaxRate)
	case len(o.Name) > MaxNameLen || !utf8.ValidString(o.Name):
		return nil, fmt.Errorf("replay: RecordOptions.Name %q: must be UTF-8 of at most %d bytes", o.Name, MaxNameLen)
	case len(o.Meta) > MaxMetaLen:
		return nil, fmt.Errorf("replay: RecordOptions.Meta of %d bytes is over the limit of %d", len(o.Meta), MaxMetaLen)
	case o.ChecksumEvery < 0 || o.ChecksumEvery > math.MaxInt32:
		return nil, fmt.Errorf("replay: RecordOptions.ChecksumEvery %d must be between 0 (every tick) and %d", o.ChecksumEvery, math.MaxInt32)
	case o.FlushEvery < 0:
		return nil, fmt.Errorf("replay: RecordOptions.FlushEvery %d must not be negative (0 means one second)", o.FlushEvery)
	}
	if o.ChecksumEvery == 0 {
		o.ChecksumEvery = DefaultChecksumEvery
	}
	if o.FlushEvery == 0 {
		o.FlushEvery = tickRate
	}
	r := &Recorder{
		enc:        newEncoder(w, defaultChunkSize),
		every:      uint64(o.ChecksumEvery),
		flushEvery: uint64(o.FlushEvery),
		checksum:   o.Checksum,
		rate:       tickRate,
	}
	if o.PlayerInputs {
		r.players = &lastPlayerInputs{}
	}
	// The newest version, whatever the options: a gamepad may be connected at any time.
	err := r.enc.start(Version, Header{TickRate: tickRate, ChecksumEvery: o.ChecksumEvery, Name: o.Name, Meta: o.Meta})
	if err == nil {
		// The header goes out at once, so that even a recording killed in its first second
		// says what it is.
		err = r.enc.flush(0)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// fail records err as the Recorder's error, unless there is one already, and returns the
// Recorder's error.
func (r *Recorder) fail(err error) error {
	if r.err == nil {
		r.err = err
	}
	return r.err
}

func (r *Recorder) usable() error {
	if r.err != nil {
		return r.err
	}
	if r.closed {
		return r.fail(errors.New("replay: Recorder used after Close"))
	}
	return nil
}

// Input records in, an input the loop delivered: in.Tick, set by the loop, must be the tick after
// the last one recorded with Tick. More than MaxInputsPerTick inputs before one tick is an
// error: no reader would take the recording.
func (r *Recorder) Input(in *gameloop.Input) error {
	if err := r.usable(); err != nil {
		return err
	}
	if in.Tick != r.lastTick+1 {
		return r.fail(fmt.Errorf("replay: %v comes before tick %d, but the last tick recorded was %d: "+
			"record the *gameloop.Input the loop delivers, and call Tick after every update", in, in.Tick, r.lastTick))
	}
	if in.Kind == 0 || in.Kind > maxInputKind {
		return r.fail(fmt.Errorf("replay: %v: input kind %d is not one this format stores", in, in.Kind))
	}
	if r.tickInputs >= MaxInputsPerTick {
		return r.fail(fmt.Errorf("replay: %v: over %d inputs (MaxInputsPerTick) before tick %d, more than a recording holds", in, MaxInputsPerTick, in.Tick))
	}
	if err := r.enc.input(in, r.lastTick); err != nil {
		return r.fail(err)
	}
	r.tickInputs++
	return nil
}

// Tick records that the update u has run: call it after every update, with the Update the loop
// delivered. After every ChecksumEvery-th tick it calls checksum, if not nil, and records the
// game's checksum; game.Checksum, a method value, fits. A change of the tick rate
// (Loop.SetTickRate) shows in u's step and is recorded, to be replayed; an Update made by hand
// with no Seconds keeps the rate as it was.
func (r *Recorder) Tick(u *gameloop.Update, checksum func() uint64) error {
	if err := r.usable(); err != nil {
		return err
	}
	tick := u.Tick
	if tick != r.lastTick+1 {
		return r.fail(fmt.Errorf("replay: Tick(%d) after tick %d: ticks must be recorded from the first, every one", tick, r.lastTick))
	}
	if u.Seconds != 0 {
		// Update.Seconds is exactly 1/TickRate: its inverse rounds back to the rate.
		rate := math.Round(1 / u.Seconds)
		if !(rate >= 1 && rate <= gameloop.MaxRate) {
			return r.fail(fmt.Errorf("replay: %v: a step of %g s is no tick rate", u, u.Seconds))
		}
		if int(rate) != r.rate {
			r.rate = int(rate)
			if err := r.enc.rate(tick, r.rate); err != nil {
				return r.fail(err)
			}
		}
	}
	r.lastTick = tick
	r.tickInputs = 0
	if checksum != nil && tick%r.every == 0 {
		if err := r.Checksum(tick, checksum()); err != nil {
			return err
		}
	}
	if tick-r.chunkStart >= r.flushEvery {
		return r.Flush()
	}
	return nil
}

// Checksum records sum as the game's checksum after the update of tick, the last tick recorded
// with Tick. Tick calls it; call it directly to record checksums at ticks of your choosing.
func (r *Recorder) Checksum(tick, sum uint64) error {
	if err := r.usable(); err != nil {
		return err
	}
	if tick != r.lastTick || tick == 0 {
		return r.fail(fmt.Errorf("replay: checksum for tick %d, but the last tick recorded was %d", tick, r.lastTick))
	}
	if err := r.enc.checksum(tick, sum); err != nil {
		return r.fail(err)
	}
	return nil
}

// Flush writes out what has been recorded so far as a whole chunk.
func (r *Recorder) Flush() error {
	if err := r.usable(); err != nil {
		return err
	}
	r.chunkStart = r.lastTick
	if err := r.enc.flush(r.lastTick); err != nil {
		return r.fail(err)
	}
	return nil
}

// Close ends the recording: it writes an end record with the number of ticks recorded, and the
// last chunk. It does not close the underlying writer. Closing twice is an error.
func (r *Recorder) Close() error {
	if err := r.usable(); err != nil {
		return err
	}
	r.closed = true
	if err := r.enc.end(r.lastTick); err != nil {
		return r.fail(err)
	}
	return nil
}

// Ticks returns the number of ticks recorded so far.
func (r *Recorder) Ticks() uint64 { return r.lastTick }

// Game wraps g for Loop.Run so that its input and ticks are recorded: input before g sees it,
// each tick after g's update, with the checksum from RecordOptions.Checksum or else g's own
// Checksum method, if any. The wrapper passes VariableUpdate and Render on to g if g has them.
// A recording error ends Run with that error.
//
// The wrapper is a gameloop.Wrapper: its Unwrap returns g, so that a backend finds what g
// implements besides those callbacks. A game recorded inside Ebitengine
// (backend/ebiten.New(rec.Game(g), cfg)) keeps its Draw and Layout so.
//
// A nil g is an error (gameloop.ErrNilGame) that the Recorder keeps: the wrapper's first Update
// returns it, as does every later call of the Recorder.
func (r *Recorder) Game(g gameloop.Game) gameloop.Game {
	if g == nil {
		_ = r.fail(fmt.Errorf("replay: Recorder.Game: %w", gameloop.ErrNilGame))
		return &recordedGame{rec: r}
	}
	sum := r.checksum
	if sum == nil {
		if c, ok := g.(Checksummer); ok {
			sum = c.Checksum
		}
	}
	rg := &recordedGame{rec: r, game: g, checksum: sum}
	rg.input, _ = g.(gameloop.InputHandler)
	rg.variable, _ = g.(gameloop.VariableUpdater)
	rg.renderer, _ = g.(gameloop.Renderer)
	return rg
}

// recordedGame is a game wrapped by Recorder.Game.
type recordedGame struct {
	rec      *Recorder
	game     gameloop.Game
	checksum func() uint64
	input    gameloop.InputHandler
	variable gameloop.VariableUpdater
	renderer gameloop.Renderer
}

func (g *recordedGame) Input(in *gameloop.Input) error {
	if err := g.rec.Input(in); err != nil {
		return err
	}
	if g.input == nil {
		return nil
	}
	return g.input.Input(in)
}

// Unwrap returns the game wrapped.
func (g *recordedGame) Unwrap() any { return g.game }

func (g *recordedGame) Update(u *gameloop.Update) error {
	if g.game == nil {
		return g.rec.err // Game's error, kept
	}
	err := g.game.Update(u)
	// The tick ran even if the update failed or stopped the game: record it, so that a replay
	// of a game that ends itself with ErrStop runs as far as the game did.
	if rerr := g.rec.Tick(u, g.checksum); rerr != nil {
		if err == nil || errors.Is(err, gameloop.ErrStop) {
			// Run would take ErrStop for a normal end and drop the recording's error.
			return rerr
		}
		return errors.Join(err, rerr)
	}
	return err
}

func (g *recordedGame) VariableUpdate(v *gameloop.VariableUpdate) error {
	if g.variable == nil {
		return nil
	}
	return g.variable.VariableUpdate(v)
}

func (g *recordedGame) Render(rd *gameloop.Render) error {
	if g.renderer == nil {
		return nil
	}
	return g.renderer.Render(rd)
}
