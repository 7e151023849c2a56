package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gameloop-go/gameloop"
)

// PlayOptions are the settings of a replay. A nil *PlayOptions replays in bench mode, headless,
// with the game's own Checksum method.
type PlayOptions struct {
	// Config is the loop to replay in. nil means gameloop.Config{Bench: true}: no waiting, so
	// that ten minutes of play take a fraction of a second. Play sets TickRate to the
	// recording's, and Window to one that delivers the recorded input; if Config.Window is set,
	// frames go to it, and its own input is read and dropped (closing it ends the replay);
	// if not, on the system clock, with no MaxFPS, a frame is drawn every tick, as in a headless
	// loop (none with NoFrames). Lazy cannot be used: a lazy loop waits for input to tick.
	Config *gameloop.Config

	// Checksum sums up the game's state, to compare with the recorded checksums. nil means the
	// game's Checksum method (see Checksummer).
	Checksum func() uint64

	// Frames makes Play pass VariableUpdate and Render on to the game, if it has them. By
	// default only Input and Update reach it: they alone decide a deterministic game's state,
	// and drawing would slow a replay down.
	Frames bool
}

// Result is what a replay found.
type Result struct {
	// Recorded is the number of ticks in the recording; Ticks the number replayed.
	Recorded, Ticks uint64
	// Inputs is the number of inputs delivered.
	Inputs int
	// PlayerInputs is the number of player inputs delivered (see PlayerInputHandler).
	PlayerInputs int
	// Trailing is how many of Inputs came after the last tick: the recorded game received
	// them, but the recording ended before the tick they preceded ran. The replay delivers
	// them after the last tick, so that the game ends in the state the recorded one did.
	Trailing int
	// Checked is the number of recorded checksums compared (all equal but the last, if
	// Mismatch is set).
	Checked int
	// Mismatch is the first tick whose checksum differed, at which the replay stopped; nil if
	// none did.
	Mismatch *Mismatch
	// Cut is set when the recording was cut short (not Complete): an error wrapping
	// ErrTruncated that says where. The replay went as far as the recording's last whole chunk.
	Cut error
	// Elapsed is the real time the replay took.
	Elapsed time.Duration
}

// Mismatch is a tick after which the game's state differed from the recorded one.
type Mismatch struct {
	Tick               uint64
	Recorded, Replayed uint64
}

// plural returns one if n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Matched reports whether every tick of the recording was replayed with no checksum differing.
func (r *Result) Matched() bool { return r.Mismatch == nil && r.Ticks == r.Recorded }

// String sums the result up in a line, such as "matched: 36000 ticks, 52 inputs, 36000
// checksums in 41ms".
func (r *Result) String() string {
	var s string
	switch {
	case r.Mismatch != nil:
		s = fmt.Sprintf("MISMATCH at tick %d: recorded checksum %016x, replayed %016x (%d earlier checksums matched)",
			r.Mismatch.Tick, r.Mismatch.Recorded, r.Mismatch.Replayed, r.Checked-1)
	case r.Ticks < r.Recorded:
		s = fmt.Sprintf("STOPPED at tick %d of %d: %d inputs, %d checksums matched", r.Ticks, r.Recorded, r.Inputs, r.Checked)
	default:
		s = fmt.Sprintf("matched: %d ticks, %d %s", r.Ticks, r.Inputs, plural(r.Inputs, "input", "inputs"))
		if r.Trailing > 0 {
			s += fmt.Sprintf(" (%d after the last tick)", r.Trailing)
		}
		s += fmt.Sprintf(", %d checksums", r.Checked)
	}
	if r.PlayerInputs > 0 {
		s += fmt.Sprintf(", %d player %s", r.PlayerInputs, plural(r.PlayerInputs, "input", "inputs"))
	}
	s += fmt.Sprintf(" in %v", r.Elapsed.Round(time.Microsecond))
	if r.Cut != nil {
		s += " (the recording was cut short: " + r.Cut.Error() + ")"
	}
	return s
}

// Play reads a recording from r as it replays it into g; see Recording.Play for the replay. It
// does not decode the whole recording first: it holds at most a chunk's worth of records (see
// MaxChunkSize) and the inputs of one tick (at most MaxInputsPerTick: a recording with more is
// corrupt) at a time, so a recording of any size, hostile or not, replays in bounded memory.
// A recording cut short is replayed as far as its last whole chunk, and Result.Cut says so. A
// recording whose header cannot be read is an error (a *FormatError) and nothing is replayed;
// damage further on is found when the replay reaches it, and ends the replay there with an
// error wrapping the *FormatError.
//
// To read the header before making the game (its Meta, say), use Open and Stream.Play.
func Play(ctx context.Context, r io.Reader, g gameloop.Game, opts *PlayOptions) (*Result, error) {
	s, err := Open(r)
	if err != nil {
		return nil, err
	}
	return s.Play(ctx, g, opts)
}

// Stream is a recording being read as it is replayed: its Header is read, the rest is read by
// Play as the replay goes. Make one with Open.
type Stream struct {
	Header
	d      decoder
	played bool
	cut    error // why the recording ended without an end record, once Play found it
}

// Open reads a recording's preamble and header from r and returns a Stream to replay it with.
// It reads r no further than the first chunk. A recording whose header cannot be read gives a
// *FormatError, as Decode does.
func Open(r io.Reader) (*Stream, error) {
	s := &Stream{d: decoder{r: r}}
	if err := s.d.preamble(); err != nil {
		return nil, err
	}
	if _, err := s.d.chunk(); err != nil && s.d.rec == nil {
		return nil, err
	} else if err != nil {
		s.d.failed = err
	}
	s.Header = s.d.rec.Header
	return s, nil
}

// Complete reports whether the recording ended with its end record. It is known once Play has
// returned; before, it is false.
func (s *Stream) Complete() bool { return s.played && s.d.rec.Complete }

// Cut returns why the recording ended early (an error wrapping ErrTruncated), once Play has
// returned; nil for a complete recording.
func (s *Stream) Cut() error { return s.cut }

// Play replays the recording into g, reading it as it goes; see the package's Play. A Stream
// plays once.
func (s *Stream) Play(ctx context.Context, g gameloop.Game, opts *PlayOptions) (*Result, error) {
	if s.played {
		return nil, errors.New("replay: the stream has already been played")
	}
	s.played = true
	p := &player{rec: s.d.rec, stream: s}
	res, err := p.play(ctx, g, opts)
	if err == nil {
		p.drain()
	}
	if res != nil {
		res.Recorded = p.recorded()
		if err == nil && p.err != nil {
			err = fmt.Errorf("replay: after %d ticks: %w", res.Ticks, p.err)
		}
		res.Cut = s.cut
	}
	return res, err
}

// Play replays the recording into g: it runs a loop (in bench mode, unless PlayOptions say
// otherwise) at the recording's tick rate, changing it where the recording did, delivers each
// recorded input just before the tick it preceded when it was recorded, and after each tick with
// a recorded checksum compares it with g's. It stops after the last recorded tick, or at the first checksum that differs
// (Result.Mismatch). g should be a new game, in the state the recorded one started in.
//
// The error is non-nil if the replay could not run: a bad option, a Recording no Recorder could
// have made (inputs out of order, say), a recording with checksums for a game with none, g
// failing (the error, wrapped with the tick), or ctx ending. A replay that ran and differed is
// not an error: see Result.Matched. A recording with a huge tick count (a hostile one, say)
// replays until ctx ends.
func (rec *Recording) Play(ctx context.Context, g gameloop.Game, opts *PlayOptions) (*Result, error) {
	if err := rec.check(); err != nil {
		return nil, err
	}
	p := &player{rec: rec, finished: true}
	res, err := p.play(ctx, g, opts)
	if res != nil && !rec.Complete {
		res.Cut = rec.cut
		if res.Cut == nil {
			res.Cut = fmt.Errorf("replay: %w: the recording has no end record", ErrTruncated)
		}
	}
	return res, err
}

// play runs the replay of p's recording into g.
func (p *player) play(ctx context.Context, g gameloop.Game, opts *PlayOptions) (*Result, error) {
	var o PlayOptions
	if opts != nil {
		o = *opts
	}
	cfg := gameloop.Config{Bench: true}
	if o.Config != nil {
		cfg = *o.Config
	}
	if cfg.Lazy {
		return nil, errors.New("replay: PlayOptions.Config.Lazy: a lazy loop waits for input to tick, and cannot replay")
	}
	p.game, p.checksum = g, o.Checksum
	if p.checksum == nil {
		if c, ok := g.(Checksummer); ok {
			p.checksum = c.Checksum
		}
	}
	p.input, _ = g.(gameloop.InputHandler)
	p.playerInput, _ = g.(PlayerInputHandler)
	if o.Frames {
		p.variable, _ = g.(gameloop.VariableUpdater)
		p.renderer, _ = g.(gameloop.Renderer)
	}
	if err := p.fill(1); err != nil {
		return nil, err
	}
	if err := p.checksummed(); err != nil {
		return nil, err
	}
	cfg.TickRate = p.rec.TickRate
	if rc := p.rec.RateChanges; len(rc) > 0 && rc[0].Tick == 1 {
		cfg.TickRate = rc[0].Rate
		p.nextRate++
	}
	p.rate = cfg.TickRate
	if _, simulated := cfg.Clock.(*gameloop.ManualClock); cfg.Window == nil && cfg.MaxFPS == 0 && !cfg.Bench && !simulated && !cfg.NoFrames {
		// The loop draws a headless loop's frames one a tick, but the replay's window makes
		// the loop think it has a screen, and with no cap it would draw (and spin) without end.
		cfg.MaxFPS = p.rec.TickRate
	}
	cfg.Window = &feedWindow{inner: cfg.Window, p: p}
	loop, err := gameloop.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	p.loop = loop
	p.res = Result{Recorded: p.recorded()}
	if p.finished && p.recorded() == 0 {
		if err := p.deliverTrailing(); err != nil && !errors.Is(err, gameloop.ErrStop) {
			return &p.res, fmt.Errorf("replay: after the last tick: %w", err)
		}
		return &p.res, nil
	}
	start := time.Now()
	err = loop.Run(ctx, p)
	p.res.Elapsed = time.Since(start)
	if err != nil {
		return &p.res, fmt.Errorf("replay: after %d of %d ticks: %w", p.res.Ticks, p.recorded(), err)
	}
	return &p.res, nil
}

// player is the game Play runs: it delivers the recorded input and checks the checksums around
// the replayed game.
//
// It reads the recording's records from rec, by index. When replaying a Stream, rec holds only
// what has been read and not yet used: fill reads on as the replay needs, first dropping what
// has been used, so that memory stays bounded.
type player struct {
	rec      *Recording
	stream   *Stream // nil when replaying a decoded Recording
	finished bool    // the recording has been read to its end (or to damage: see err)
	err      error   // damage found in the recording while reading it on
	game     gameloop.Game
	checksum func() uint64
	input    gameloop.InputHandler
	variable gameloop.VariableUpdater
	renderer gameloop.Renderer

	loop      *gameloop.Loop
	next      int    // the next of rec.Inputs to deliver
	nextRate  int    // the next of rec.RateChanges to make
	nextCheck int    // the next of rec.Checksums to compare
	rate      int    // the tick rate of the next tick
	lastTick  uint64 // the last tick replayed
	res       Result

	playerInput PlayerInputHandler // nil if the game has no PlayerInput method
	nextPlayer  int                // the next of rec.PlayerInputs to deliver
}

// due appends to buf the recorded inputs that precede the next tick, which the loop will
// deliver next. The loop polls its window at the start of each pass, and in bench mode every
// tick has a pass of its own, so each input reaches the game through the loop, as it did when
// it was recorded, marked by the loop with the tick it precedes.
func (p *player) due(buf []gameloop.Input) []gameloop.Input {
	if p.fill(p.lastTick+1) != nil {
		return buf // Update reports it
	}
	for p.next < len(p.rec.Inputs) && p.rec.Inputs[p.next].Tick == p.lastTick+1 {
		buf = append(buf, p.rec.Inputs[p.next])
		p.next++
	}
	return buf
}

func (p *player) Input(in *gameloop.Input) error {
	if in.Tick != p.lastTick+1 {
		return fmt.Errorf("replay: the loop delivered input recorded for tick %d before tick %d", p.lastTick+1, in.Tick)
	}
	return p.deliver(in)
}

func (p *player) deliver(in *gameloop.Input) error {
	p.res.Inputs++
	if p.input == nil {
		return nil
	}
	return p.input.Input(in)
}

// fill makes sure that what the recording holds for the ticks up to need has been read: it
// reads on until a record says tick need has run, or the recording ends.
func (p *player) fill(need uint64) error {
	if p.err != nil || p.finished {
		return p.err
	}
	d := &p.stream.d
	// Reading stops once the records say tick need has run: what is still to come is for later
	// ticks. So what is held is the records of the ticks not yet replayed that came in the
	// chunks read: a chunk's worth, and the inputs of one tick (at most MaxInputsPerTick).
	for !p.finished && d.known() < need {
		p.compact()
		if d.failed != nil {
			p.finish(d.failed)
			break
		}
		more, err := d.chunk()
		if err != nil {
			p.finish(err)
		} else if !more {
			p.finished = true
		}
	}
	return p.err
}

// finish ends the reading of a stream with err: a recording cut short is replayed as far as it
// goes; damage is an error.
func (p *player) finish(err error) {
	p.finished = true
	if errors.Is(err, ErrTruncated) {
		p.stream.cut = err
		return
	}
	p.err = err
}

// compact drops the records the replay has used, keeping the room for the next.
func (p *player) compact() {
	r := p.rec
	r.Inputs = r.Inputs[:copy(r.Inputs, r.Inputs[p.next:])]
	r.RateChanges = r.RateChanges[:copy(r.RateChanges, r.RateChanges[p.nextRate:])]
	r.Checksums = r.Checksums[:copy(r.Checksums, r.Checksums[p.nextCheck:])]
	r.PlayerInputs = r.PlayerInputs[:copy(r.PlayerInputs, r.PlayerInputs[p.nextPlayer:])]
	p.next, p.nextRate, p.nextCheck, p.nextPlayer = 0, 0, 0, 0
}

// drain reads the rest of a stream, keeping nothing, to learn how many ticks it holds.
func (p *player) drain() {
	for !p.finished && p.err == nil {
		p.next, p.nextRate, p.nextCheck = len(p.rec.Inputs), len(p.rec.RateChanges), len(p.rec.Checksums)
		p.nextPlayer = len(p.rec.PlayerInputs)
		p.fill(p.stream.d.known() + 1)
	}
}

// recorded returns the number of ticks in the recording, as far as it has been read.
func (p *player) recorded() uint64 {
	if p.stream == nil {
		return p.rec.Ticks
	}
	d := &p.stream.d
	if p.rec.Complete {
		return p.rec.Ticks
	}
	return d.known()
}

// checksummed reports a recording with checksums for a game that has none.
func (p *player) checksummed() error {
	if p.checksum == nil && len(p.rec.Checksums) > p.nextCheck {
		return errors.New("replay: the recording has checksums, but the game has no Checksum method and PlayOptions.Checksum is nil")
	}
	return nil
}

func (p *player) Update(u *gameloop.Update) error {
	if err := p.fill(u.Tick + 1); err != nil {
		return fmt.Errorf("replay: reading on: %w", err)
	}
	if err := p.checksummed(); err != nil {
		return err
	}
	// A loop on the system's clock may run several ticks in one pass, after polling input once
	// for the first of them: the input of the others is delivered here, still before its tick.
	for p.next < len(p.rec.Inputs) && p.rec.Inputs[p.next].Tick <= u.Tick {
		in := p.rec.Inputs[p.next]
		p.next++
		if in.Tick != u.Tick {
			return fmt.Errorf("replay: input recorded for tick %d not delivered before it", in.Tick)
		}
		if err := p.deliver(&in); err != nil {
			return err
		}
	}
	if err := p.deliverPlayerInputs(u.Tick); err != nil {
		return err
	}
	if u.Seconds != 1/float64(p.rate) {
		return fmt.Errorf("replay: tick %d has a step of %v; the recording's rate of %d ticks per second makes it %v",
			u.Tick, u.DT, p.rate, time.Second/time.Duration(p.rate))
	}
	// A game may end itself with ErrStop: the tick ran all the same, and is checked.
	err := p.game.Update(u)
	if err != nil && !errors.Is(err, gameloop.ErrStop) {
		return err
	}
	p.lastTick = u.Tick
	p.res.Ticks = u.Tick
	if cs := p.rec.Checksums; p.nextCheck < len(cs) && cs[p.nextCheck].Tick == u.Tick {
		p.nextCheck++
		p.res.Checked++
		if got := p.checksum(); got != cs[p.nextCheck-1].Sum {
			p.res.Mismatch = &Mismatch{Tick: u.Tick, Recorded: cs[p.nextCheck-1].Sum, Replayed: got}
			return gameloop.ErrStop
		}
	}
	if p.finished && u.Tick >= p.recorded() {
		if err := p.deliverTrailing(); err != nil {
			return err
		}
		return gameloop.ErrStop
	}
	if rc := p.rec.RateChanges; p.nextRate < len(rc) && rc[p.nextRate].Tick == u.Tick+1 {
		// The loop changes the rate before its next update.
		if err := p.loop.SetTickRate(rc[p.nextRate].Rate); err != nil {
			return err
		}
		p.rate = rc[p.nextRate].Rate
		p.nextRate++
	}
	return err
}

// deliverTrailing delivers the inputs recorded after the last tick, once it has run: the
// recorded game received them before the recording ended, and the replayed one must too, to
// end in the same state. They are all for the tick after the last, which no loop runs, so they
// go to the game directly.
func (p *player) deliverTrailing() error {
	for p.next < len(p.rec.Inputs) {
		in := p.rec.Inputs[p.next]
		p.next++
		p.res.Trailing++
		if err := p.deliver(&in); err != nil {
			return err
		}
	}
	return nil
}

func (p *player) VariableUpdate(v *gameloop.VariableUpdate) error {
	if p.variable == nil {
		return nil
	}
	return p.variable.VariableUpdate(v)
}

func (p *player) Render(r *gameloop.Render) error {
	if p.renderer == nil {
		return nil
	}
	return p.renderer.Render(r)
}

// feedWindow is the window of a replay: its input is the recording's, and the rest (size,
// frames, closing) is that of the window it wraps, if any.
type feedWindow struct {
	inner   gameloop.Window
	p       *player
	dropped []gameloop.Input // the wrapped window's own input, read and dropped
}

func (w *feedWindow) PollInput(buf []gameloop.Input) []gameloop.Input {
	if w.inner != nil {
		// Polled all the same: a backend handles its window's events while polling.
		w.dropped = w.inner.PollInput(w.dropped[:0])
	}
	return w.p.due(buf)
}

func (w *feedWindow) WaitInput(timeout time.Duration) {
	if w.inner != nil {
		w.inner.WaitInput(timeout)
	}
}

func (w *feedWindow) Wake() {
	if w.inner != nil {
		w.inner.Wake()
	}
}

func (w *feedWindow) Size() (int, int) {
	if w.inner != nil {
		return w.inner.Size()
	}
	return 0, 0
}

func (w *feedWindow) ShouldClose() bool { return w.inner != nil && w.inner.ShouldClose() }

func (w *feedWindow) SwapBuffers() error {
	if w.inner != nil {
		return w.inner.SwapBuffers()
	}
	return nil
}
