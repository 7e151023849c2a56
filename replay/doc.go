// Package replay records the input a game loop delivers and plays it back, to prove that a game
// is deterministic and to let a game test itself from recorded play.
//
// A game whose state changes only in fixed-step updates and on input reaches the same state
// from the same input applied before the same ticks, at any frame rate, on any machine. A
// recording is that input, each with the tick it preceded, and the game's checksum (see
// Checksummer) after every tick or every few. Replaying it runs a loop in bench mode, which
// never waits: ten minutes of play at 60 ticks per second replay in well under a tenth of a
// second, and the first tick whose checksum differs is reported.
//
// # Recording
//
// Make a Recorder on a file and feed it the loop's own Input events and ticks, or wrap the game
// for Loop.Run:
//
//	f, err := os.Create("session.rec")
//	if err != nil { ... }
//	rec, err := replay.NewRecorder(f, loop.Config().TickRate, &replay.RecordOptions{Name: "bounce", Meta: seed})
//	if err != nil { ... }
//	err = loop.Run(ctx, rec.Game(game))
//	err = errors.Join(err, rec.Close(), f.Close())
//
// The Input events the loop delivers, not the window's raw input, are what is recorded: the
// loop marks each with the tick it precedes (Input.Tick), and that is the tick a replay must
// deliver it before. What else decides the game's start (a random seed, the size of its arena)
// goes in RecordOptions.Meta.
//
// # Players of a networked game
//
// A networked game (package netplay) records its players' confirmed inputs rather than a
// window's: each a fixed-size value the game defines, one a player a tick. Make the Recorder
// with RecordOptions.PlayerInputs and call Recorder.PlayerInput for every player before each
// Tick; only the inputs that change are written. A replay delivers them to a game that
// implements PlayerInputHandler, before the update of their tick.
//
// # Replaying
//
//	res, err := replay.Play(ctx, f, newGame(), nil)
//	if err != nil { ... }        // the recording is damaged, or the game failed
//	if !res.Matched() { ... }    // res.Mismatch.Tick is the first tick that differed
//
// Play reads the recording as it replays it, a chunk at a time (and a recording holds at most
// MaxInputsPerTick inputs for one tick), so a recording of any size replays in bounded memory.
// Inputs recorded after the last tick (the key that quit the game, say) are delivered after it,
// so that the game ends in the state the recorded one did. To read its Header first (to make the game from Meta, say), Open
// it and call Stream.Play; to hold all of it (to look at its inputs, say), Decode it and call
// Recording.Play. A go test can replay a recording checked into testdata to test a game
// with real play.
//
// # What a deterministic game does
//
// Its Update depends only on its state, the Update (Tick and DT, the same every tick) and the
// input delivered before it. It does not read the clock, the window, the frame's Alpha or
// VariableUpdate's DT, and draws random numbers from a generator in its state, seeded from
// Meta. It iterates maps in a fixed order. Its Checksum hashes all of its state.
//
// # The file
//
// A recording is a stream of chunks, each with its length and a CRC, written as play goes on:
// a recording cut short by a crash is read up to its last whole chunk (Decode reports
// ErrTruncated with what it read). Damaged or hostile data gives a *FormatError saying what is
// wrong and at which byte; lengths are checked before use. FORMAT.md in this directory is the
// specification.
package replay
