package replay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// ship is a small deterministic game: the arrow keys change its speed, each tick moves it.
type ship struct {
	x, speed int64
	stopAt   uint64 // the tick after which the game ends
}

func (s *ship) Input(in *gameloop.Input) error {
	switch {
	case in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyRight:
		s.speed++
	case in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyLeft:
		s.speed--
	}
	return nil
}

func (s *ship) Update(u *gameloop.Update) error {
	s.x += s.speed
	if u.Tick == s.stopAt {
		return gameloop.ErrStop
	}
	return nil
}

// Checksum makes ship a replay.Checksummer.
func (s *ship) Checksum() uint64 { return uint64(s.x)<<32 ^ uint64(s.speed) }

// Record a game played with Loop.Run by wrapping it, then look at the recording.
func ExampleNewRecorder() {
	win := gameloop.NewHeadlessWindow(640, 480)
	loop, err := gameloop.New(gameloop.Config{Bench: true, Window: win})
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer // an *os.File, usually
	rec, err := replay.NewRecorder(&file, loop.Config().TickRate, &replay.RecordOptions{Name: "ship"})
	if err != nil {
		log.Fatal(err)
	}
	win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyRight})
	if err := loop.Run(context.Background(), rec.Game(&ship{stopAt: 120})); err != nil {
		log.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		log.Fatal(err)
	}

	recording, err := replay.Decode(&file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q at %d ticks per second: %d ticks, %d checksums\n",
		recording.Name, recording.TickRate, recording.Ticks, len(recording.Checksums))
	for _, in := range recording.Inputs {
		fmt.Println(&in)
	}
	// Output:
	// "ship" at 60 ticks per second: 120 ticks, 120 checksums
	// Input{KeyPress Right tick=1}
}

// Replay a recording into a new game, in bench mode, and check that it reaches the recorded
// state after every tick.
func ExamplePlay() {
	recording := &replay.Recording{
		Header: replay.Header{TickRate: 60},
		Inputs: []gameloop.Input{
			{Kind: gameloop.KeyPress, Key: gameloop.KeyRight, Tick: 1},
			{Kind: gameloop.KeyPress, Key: gameloop.KeyRight, Tick: 30},
		},
		// After tick 40: speed 2, x = 29*1 + 11*2.
		Checksums: []replay.Checksum{{Tick: 40, Sum: 51<<32 ^ 2}},
		Ticks:     36000, // ten minutes
		Complete:  true,
	}
	var file bytes.Buffer
	if err := recording.Encode(&file); err != nil {
		log.Fatal(err)
	}

	res, err := replay.Play(context.Background(), &file, &ship{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("matched:", res.Matched())
	fmt.Println(res.Ticks, "ticks,", res.Inputs, "inputs,", res.Checked, "checksums compared")
	// Output:
	// matched: true
	// 36000 ticks, 2 inputs, 1 checksums compared
}

// A replay stops at the first tick whose checksum differs from the recorded one.
func ExampleRecording_Play_mismatch() {
	recording := &replay.Recording{
		Header:    replay.Header{TickRate: 60},
		Inputs:    []gameloop.Input{{Kind: gameloop.KeyPress, Key: gameloop.KeyRight, Tick: 5}},
		Checksums: []replay.Checksum{{Tick: 4, Sum: 0}, {Tick: 5, Sum: 1<<32 ^ 1}, {Tick: 6, Sum: 99}},
		Ticks:     10,
	}
	res, err := recording.Play(context.Background(), &ship{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("tick %d: recorded %#x, replayed %#x\n", res.Mismatch.Tick, res.Mismatch.Recorded, res.Mismatch.Replayed)
	// Output:
	// tick 6: recorded 0x63, replayed 0x200000001
}

// Record with Loop.Events: each input the loop delivers, and each tick after the game's update.
func ExampleRecorder_Tick() {
	win := gameloop.NewHeadlessWindow(640, 480)
	loop, err := gameloop.New(gameloop.Config{Bench: true, Window: win})
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	rec, err := replay.NewRecorder(&file, loop.Config().TickRate, &replay.RecordOptions{ChecksumEvery: 30})
	if err != nil {
		log.Fatal(err)
	}
	game := &ship{}
	win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyLeft})
	for ev := range loop.Events(context.Background()) {
		switch ev := ev.(type) {
		case *gameloop.Input:
			err = errors.Join(rec.Input(ev), game.Input(ev))
		case *gameloop.Update:
			err = errors.Join(game.Update(ev), rec.Tick(ev, game.Checksum))
		}
		if err != nil {
			log.Fatal(err)
		}
		if rec.Ticks() == 90 {
			break
		}
	}
	if err := errors.Join(loop.Err(), rec.Close()); err != nil {
		log.Fatal(err)
	}

	recording, err := replay.Decode(&file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(recording.Ticks, "ticks; checksums after ticks", recording.Checksums[0].Tick, recording.Checksums[1].Tick, recording.Checksums[2].Tick)
	res, err := recording.Play(context.Background(), &ship{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("matched:", res.Matched())
	// Output:
	// 90 ticks; checksums after ticks 30 60 90
	// matched: true
}
