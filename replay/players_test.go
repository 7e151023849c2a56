package replay_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// playerGame is a networked game as a replay sees it: each player's input (2 bytes: a
// direction and a button) moves that player each tick, and a key press moves them all. It
// fails if a player input does not come after the loop's input and before the update of its
// tick, players in increasing order.
type playerGame struct {
	inputs   [replay.MaxPlayers][2]byte
	pos      [replay.MaxPlayers]int64
	lastTick uint64
	lastSeen int    // the last player whose input came for the coming tick, -1 if none
	ignore   int    // a player whose inputs the game drops, to plant a desync; -1 for none
	calls    int    // PlayerInput calls
	keys     uint64 // key presses seen
}

func newPlayerGame() *playerGame { return &playerGame{lastSeen: -1, ignore: -1} }

func (g *playerGame) PlayerInput(tick uint64, player int, data []byte) error {
	if tick != g.lastTick+1 || player <= g.lastSeen || len(data) != 2 {
		return fmt.Errorf("input of player %d for tick %d (%d bytes) after tick %d and player %d", player, tick, len(data), g.lastTick, g.lastSeen)
	}
	g.lastSeen = player
	g.calls++
	if player != g.ignore {
		copy(g.inputs[player][:], data)
	}
	return nil
}

func (g *playerGame) Input(in *gameloop.Input) error {
	if in.Tick != g.lastTick+1 || g.lastSeen >= 0 {
		return fmt.Errorf("%v after tick %d and a player input", in, g.lastTick)
	}
	g.keys++
	return nil
}

func (g *playerGame) Update(u *gameloop.Update) error {
	for p, in := range g.inputs {
		g.pos[p] += int64(int8(in[0])) * int64(1+in[1]) * int64(g.keys+1)
	}
	g.lastTick, g.lastSeen = u.Tick, -1
	return nil
}

func (g *playerGame) Checksum() uint64 {
	var b [8 * replay.MaxPlayers]byte
	for i, p := range g.pos {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(p))
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// recordPlayers plays a session of players players for ticks ticks into a Recorder, every
// player's input given every tick (changing now and then, as a player's does), a key press
// every 50 ticks; it returns the recording, the game's final checksum and the number of
// player inputs that changed.
func recordPlayers(t testing.TB, players, ticks int, seed uint64) ([]byte, uint64, int) {
	t.Helper()
	var buf bytes.Buffer
	r, err := replay.NewRecorder(&buf, 60, &replay.RecordOptions{Name: "players", PlayerInputs: true, FlushEvery: 25})
	if err != nil {
		t.Fatal(err)
	}
	g := newPlayerGame()
	rng := rand.New(rand.NewPCG(seed, 9))
	var cur [replay.MaxPlayers][2]byte
	changes := 0
	for tick := uint64(1); tick <= uint64(ticks); tick++ {
		if tick%50 == 0 {
			in := gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA, Tick: tick}
			if err := errors.Join(r.Input(&in), g.Input(&in)); err != nil {
				t.Fatal(err)
			}
		}
		for p := range players {
			if tick == 1 || rng.IntN(8) == 0 {
				next := [2]byte{byte(rng.IntN(3) - 1), byte(rng.IntN(2))}
				if tick == 1 || next != cur[p] {
					changes++
				}
				cur[p] = next
			}
			if err := errors.Join(r.PlayerInput(tick, p, cur[p][:]), g.PlayerInput(tick, p, cur[p][:])); err != nil {
				t.Fatal(err)
			}
		}
		u := &gameloop.Update{Tick: tick, Seconds: 1.0 / 60}
		if err := errors.Join(g.Update(u), r.Tick(u, g.Checksum)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), g.Checksum(), changes
}

// TestPlayerInputsRoundTrip: a Recorder writes player inputs only when they change;
// Decode gives them back; Encode writes what decodes to the same, in version 2; and a
// recording with none is encoded as before, in version 1.
func TestPlayerInputsRoundTrip(t *testing.T) {
	data, _, changes := recordPlayers(t, 3, 600, 1)
	if v := binary.LittleEndian.Uint16(data[8:]); v != replay.Version {
		t.Errorf("a Recorder wrote version %d, want %d", v, replay.Version)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.PlayerInputs) != changes || changes == 3 || changes >= 3*600/2 {
		t.Fatalf("%d player inputs decoded, %d changes recorded, of %d given", len(rec.PlayerInputs), changes, 3*600)
	}
	for i, in := range rec.PlayerInputs {
		if in.Tick == 1 && in.Player != i {
			t.Errorf("player input %d: %+v; tick 1 holds every player's first input", i, in)
		}
		if len(in.Data) != 2 {
			t.Errorf("player input %d: %+v", i, in)
		}
	}
	var again bytes.Buffer
	if err := rec.Encode(&again); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint16(again.Bytes()[8:]); v != 2 {
		t.Errorf("a recording of player inputs is encoded in version %d, want 2", v)
	}
	back, err := replay.Decode(bytes.NewReader(again.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rec) {
		t.Errorf("encoded and decoded: %d player inputs, %d inputs, %d checksums; want %d, %d, %d",
			len(back.PlayerInputs), len(back.Inputs), len(back.Checksums), len(rec.PlayerInputs), len(rec.Inputs), len(rec.Checksums))
	}

	// Without player inputs: encoded in version 1, as before.
	rec.PlayerInputs = nil
	again.Reset()
	if err := rec.Encode(&again); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint16(again.Bytes()[8:]); v != 1 {
		t.Errorf("a recording with no player inputs is encoded in version %d, want 1", v)
	}
}

func TestPlayerInputRecorderErrors(t *testing.T) {
	in2 := []byte{1, 2}
	for _, c := range []struct {
		name  string
		calls func(r *replay.Recorder) error
		want  string
	}{
		{"no option", nil, "without RecordOptions.PlayerInputs"},
		{"tick 0", func(r *replay.Recorder) error { return r.PlayerInput(0, 0, in2) }, "last tick recorded was 0"},
		{"tick 2 first", func(r *replay.Recorder) error { return r.PlayerInput(2, 0, in2) }, "last tick recorded was 0"},
		{"tick already run", func(r *replay.Recorder) error {
			return errors.Join(r.Tick(&gameloop.Update{Tick: 1}, nil), r.PlayerInput(1, 0, in2))
		}, "last tick recorded was 1"},
		{"player -1", func(r *replay.Recorder) error { return r.PlayerInput(1, -1, in2) }, "players are 0 to 7"},
		{"player 8", func(r *replay.Recorder) error { return r.PlayerInput(1, 8, in2) }, "players are 0 to 7"},
		{"player twice", func(r *replay.Recorder) error {
			return errors.Join(r.PlayerInput(1, 1, in2), r.PlayerInput(1, 1, in2))
		}, "increasing order"},
		{"players out of order", func(r *replay.Recorder) error {
			return errors.Join(r.PlayerInput(1, 1, in2), r.PlayerInput(1, 0, in2))
		}, "increasing order"},
		{"empty", func(r *replay.Recorder) error { return r.PlayerInput(1, 0, nil) }, "0 bytes, not 1 to 64"},
		{"65 bytes", func(r *replay.Recorder) error { return r.PlayerInput(1, 0, make([]byte, 65)) }, "65 bytes, not 1 to 64"},
		{"size changes", func(r *replay.Recorder) error {
			return errors.Join(r.PlayerInput(1, 0, in2), r.Tick(&gameloop.Update{Tick: 1}, nil), r.PlayerInput(2, 0, []byte{1, 2, 3}))
		}, "earlier inputs were 2"},
		{"after close", func(r *replay.Recorder) error { return errors.Join(r.Close(), r.PlayerInput(1, 0, in2)) }, "after Close"},
	} {
		opts := &replay.RecordOptions{PlayerInputs: c.calls != nil}
		r, err := replay.NewRecorder(&bytes.Buffer{}, 60, opts)
		if err != nil {
			t.Fatal(err)
		}
		calls := c.calls
		if calls == nil {
			calls = func(r *replay.Recorder) error { return r.PlayerInput(1, 0, in2) }
		}
		err = calls(r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.want)
		}
		// The error sticks: the recording is spoilt.
		if err := r.Close(); err == nil {
			t.Errorf("%s: Close after the error succeeded", c.name)
		}
	}
	// Each player may come once a tick, and inputs may be 1 to 64 bytes.
	r, err := replay.NewRecorder(&bytes.Buffer{}, 60, &replay.RecordOptions{PlayerInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	err = errors.Join(r.PlayerInput(1, 0, []byte{1}), r.PlayerInput(1, 7, make([]byte, 64)),
		r.Tick(&gameloop.Update{Tick: 1}, nil), r.PlayerInput(2, 0, []byte{1}), r.PlayerInput(2, 3, []byte{9}), r.Close())
	if err != nil {
		t.Errorf("valid player inputs: %v", err)
	}
}

// version2 is the preamble of a recording of version 2.
const version2 = magic + "\x02\x00"

// pin makes a player input record: tick delta, player, data.
func pin(delta, player byte, data ...byte) []byte {
	return rec(7, append([]byte{delta, player}, data...)...)
}

func TestPlayerInputDecodeErrors(t *testing.T) {
	body := int64(len(version2) + 8 + len(header60)) // where the second record starts
	for _, c := range []struct {
		name   string
		data   []byte
		err    error
		offset int64
		detail string
	}{
		{"in version 1", cat([]byte(preamble), chunk(header60, pin(1, 0, 5)), chunk(end0)), replay.ErrCorrupt, body, "version 1, which holds none"},
		{"no tick", cat([]byte(version2), chunk(header60, rec(7))), replay.ErrCorrupt, body + 2, "ends inside its tick"},
		{"no player", cat([]byte(version2), chunk(header60, rec(7, 1))), replay.ErrCorrupt, body + 3, "ends inside its player"},
		{"no data", cat([]byte(version2), chunk(header60, rec(7, 1, 0))), replay.ErrCorrupt, body + 4, "0 bytes, not 1 to 64"},
		{"65 bytes", cat([]byte(version2), chunk(header60, pin(1, 0, make([]byte, 65)...))), replay.ErrCorrupt, body + 4, "65 bytes, not 1 to 64"},
		{"player 8", cat([]byte(version2), chunk(header60, pin(1, 8, 1))), replay.ErrCorrupt, body + 3, "player 8 is not 0 to 7"},
		{"tick 0", cat([]byte(version2), chunk(header60, pin(0, 0, 1))), replay.ErrCorrupt, body + 2, "tick 0, which has already run"},
		{"players out of order", cat([]byte(version2), chunk(header60, pin(1, 2, 1), pin(1, 1, 1))), replay.ErrCorrupt, body + 5 + 3, "player 1 for tick 1 after player 2"},
		{"player twice", cat([]byte(version2), chunk(header60, pin(1, 2, 1), pin(1, 2, 1))), replay.ErrCorrupt, body + 5 + 3, "player 2 for tick 1 after player 2"},
		{"earlier tick", cat([]byte(version2), chunk(header60, pin(2, 0, 1), pin(1, 1, 1))), replay.ErrCorrupt, body + 5 + 2, "tick 1 after one for tick 2"},
		{"size changes", cat([]byte(version2), chunk(header60, pin(1, 0, 1), pin(2, 0, 1, 2))), replay.ErrCorrupt, body + 5 + 4, "2 bytes, but its earlier inputs were 1"},
		{"after rate change", cat([]byte(version2), chunk(header60, rec(6, 2, 30), pin(2, 0, 1))), replay.ErrCorrupt, body + 4 + 2, "after the tick rate changed for tick 2"},
		{"ran too few", cat([]byte(version2), chunk(header60, pin(5, 0, 1), rec(4, 3))), replay.ErrCorrupt, body + 5 + 2, "says tick 3 has run"},
		{"cut short", cat([]byte(version2), chunk(header60, pin(1, 0, 1), rec(4, 1)), chunk(pin(1, 0, 2))[:9]), replay.ErrTruncated, body + 8, "cut short"},
	} {
		rec, err := replay.Decode(bytes.NewReader(c.data))
		var fe *replay.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, c.err) || fe.Offset != c.offset || !strings.Contains(fe.Detail, c.detail) {
			t.Errorf("%s: %v (offset %v); want %v at byte %d saying %q", c.name, err, offsetOf(fe), c.err, c.offset, c.detail)
		}
		if c.err == replay.ErrTruncated && (rec == nil || len(rec.PlayerInputs) != 1 || rec.Ticks != 1) {
			t.Errorf("%s: the recording cut short holds %+v; want its first chunk", c.name, rec)
		}
	}
	// A recording that no Recorder could have made does not encode.
	for _, bad := range [][]replay.PlayerInput{
		{{Tick: 0, Player: 0, Data: []byte{1}}},
		{{Tick: 1, Player: 8, Data: []byte{1}}},
		{{Tick: 1, Player: 0}},
		{{Tick: 2, Player: 0, Data: []byte{1}}, {Tick: 1, Player: 1, Data: []byte{1}}},
		{{Tick: 1, Player: 1, Data: []byte{1}}, {Tick: 1, Player: 1, Data: []byte{1}}},
		{{Tick: 1, Player: 0, Data: []byte{1}}, {Tick: 2, Player: 0, Data: []byte{1, 2}}},
		{{Tick: 5, Player: 0, Data: []byte{1}}},
	} {
		r := &replay.Recording{Header: replay.Header{TickRate: 60}, PlayerInputs: bad, Ticks: 2}
		if err := r.Encode(&bytes.Buffer{}); err == nil {
			t.Errorf("Encode of player inputs %+v succeeded", bad)
		}
	}
}

func offsetOf(fe *replay.FormatError) any {
	if fe == nil {
		return "none"
	}
	return fe.Offset
}

// TestPlayPlayerInputs: a replay delivers each player input after the tick's loop input and
// before its update, and a game that changes on them replays matched, streamed or decoded;
// a game that drops a player's inputs is caught at the first tick it changes the state.
func TestPlayPlayerInputs(t *testing.T) {
	data, final, changes := recordPlayers(t, 4, 1200, 2)
	g := newPlayerGame()
	res, err := replay.Play(t.Context(), bytes.NewReader(data), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matched() || res.Ticks != 1200 || res.Checked != 1200 || res.PlayerInputs != changes || res.Inputs != 24 {
		t.Fatalf("streamed replay: %v, %d player inputs of %d; want matched", res, res.PlayerInputs, changes)
	}
	if want := fmt.Sprintf("matched: 1200 ticks, 24 inputs, 1200 checksums, %d player inputs in ", changes); !strings.HasPrefix(res.String(), want) {
		t.Errorf("Result.String() = %q, want it to start %q", res.String(), want)
	}
	if g.Checksum() != final || g.calls != changes {
		t.Errorf("replayed game ends at %x after %d player inputs, recorded %x after %d", g.Checksum(), g.calls, final, changes)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err = rec.Play(t.Context(), newPlayerGame(), nil)
	if err != nil || !res.Matched() || res.PlayerInputs != changes {
		t.Fatalf("decoded replay: %v, %v", res, err)
	}

	// Player 2 dropped: the first tick its input moves it differs.
	g = newPlayerGame()
	g.ignore = 2
	res, err = rec.Play(t.Context(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := uint64(0)
	var held [2]byte
	for _, in := range rec.PlayerInputs {
		if in.Player == 2 {
			held = [2]byte(in.Data)
		}
		if held[0] != 0 {
			first = in.Tick
			break
		}
	}
	if res.Mismatch == nil || res.Mismatch.Tick != first {
		t.Errorf("replay with player 2 dropped: %v; want a mismatch at tick %d, the first at which player 2 moves", res, first)
	}

	// A game with no PlayerInput method cannot replay player inputs.
	_, err = replay.Play(t.Context(), bytes.NewReader(data), &counter{}, nil)
	if err != nil {
		t.Fatalf("counter (which takes player inputs): %v", err)
	}
	_, err = replay.Play(t.Context(), bytes.NewReader(data), newBounce(), nil)
	if err == nil || !strings.Contains(err.Error(), "no PlayerInput method") {
		t.Errorf("a game without PlayerInput: %v; want an error saying so", err)
	}
}

// PlayerInput makes the fuzz target's counter game take player inputs, so that recordings
// holding them replay.
func (c *counter) PlayerInput(tick uint64, player int, data []byte) error {
	c.sum = c.sum*31 + tick + uint64(player)<<8
	for _, b := range data {
		c.sum = c.sum*31 + uint64(b)
	}
	return nil
}

// playerSeeds returns FuzzDecode's seeds of recordings with player inputs: a whole one, one cut
// short, one damaged, and one of version 1 holding a player input record.
func playerSeeds(t testing.TB) map[string][]byte {
	data, _, _ := recordPlayers(t, 3, 90, 3)
	chunks := chunkOffsets(data)
	flipped := bytes.Clone(data)
	flipped[chunks[2]+9] ^= 0x04
	return map[string][]byte{
		"players-valid":     data,
		"players-truncated": data[:chunks[2]+20],
		"players-bitflip":   flipped,
		"players-version-1": cat([]byte(preamble), chunk(header60, pin(1, 0, 5)), chunk(end0)),
		"players-hand":      cat([]byte(version2), chunk(header60, pin(1, 0, 5), pin(1, 3, 7), rec(3, 1, 1, 2, 3, 4, 5, 6, 7, 8), rec(4, 1)), chunk(pin(1, 3, 8), rec(5, 1))),
	}
}

// TestPlayerSeedCorpus checks that the player input seeds in testdata/fuzz/FuzzDecode are those
// playerSeeds makes; run with -update-corpus to write them.
func TestPlayerSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	for name, data := range playerSeeds(t) {
		file := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		path := filepath.Join(dir, name)
		if *updateCorpus {
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != file {
			t.Errorf("%s differs from the seed playerSeeds makes (%v; run go test -run TestPlayerSeedCorpus -update-corpus ./replay)", path, err)
		}
	}
}

// FuzzRecordPlayers drives a Recorder with arbitrary player inputs, ticks and flushes, and
// checks that the recording decodes to exactly the inputs that changed, and that every cut of it
// decodes to a prefix of them.
func FuzzRecordPlayers(f *testing.F) {
	f.Add([]byte{1, 0, 5, 1, 1, 6, 0, 1, 0, 5, 1, 2, 7, 0, 2, 0, 1, 0, 9}, uint8(3))
	f.Add(bytes.Repeat([]byte{1, 7, 0xff, 0}, 40), uint8(64))
	f.Fuzz(func(t *testing.T, script []byte, sizeSeed uint8) {
		var buf bytes.Buffer
		r, err := replay.NewRecorder(&buf, 60, &replay.RecordOptions{PlayerInputs: true, FlushEvery: 3})
		if err != nil {
			t.Fatal(err)
		}
		// Player p's inputs are 1 + (sizeSeed+p) % 64 bytes, its first byte from the script.
		size := func(p int) int { return 1 + (int(sizeSeed)+p*7)%replay.MaxPlayerInputSize }
		var want []replay.PlayerInput
		var last [replay.MaxPlayers][]byte
		tick, lastPlayer := uint64(0), -1
		for len(script) >= 3 {
			op, a, b := script[0], script[1], script[2]
			script = script[3:]
			switch op % 3 {
			case 0:
				tick++
				lastPlayer = -1
				if err := r.Tick(&gameloop.Update{Tick: tick, Seconds: 1.0 / 60}, nil); err != nil {
					t.Fatal(err)
				}
			case 1:
				p := int(a) % replay.MaxPlayers
				if p <= lastPlayer {
					continue // the Recorder refuses it, as TestPlayerInputRecorderErrors checks
				}
				lastPlayer = p
				data := bytes.Repeat([]byte{b}, size(p))
				data[len(data)-1] ^= a
				if err := r.PlayerInput(tick+1, p, data); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(last[p], data) {
					want = append(want, replay.PlayerInput{Tick: tick + 1, Player: p, Data: data})
					last[p] = data
				}
			case 2:
				if err := r.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		got, err := replay.Decode(bytes.NewReader(data))
		if err != nil || got.Ticks != tick || !reflect.DeepEqual(got.PlayerInputs, want) {
			t.Fatalf("decoded %v: %d ticks, %+v\nrecorded %d ticks, %+v", err, got.Ticks, got.PlayerInputs, tick, want)
		}
		for _, n := range []int{len(data) / 3, len(data) / 2, len(data) - 1} {
			cut, err := replay.Decode(bytes.NewReader(data[:n]))
			if !errors.Is(err, replay.ErrTruncated) {
				t.Fatalf("cut at %d of %d: error %v", n, len(data), err)
			}
			if cut != nil && len(cut.PlayerInputs) > 0 && (len(cut.PlayerInputs) > len(want) || !reflect.DeepEqual(cut.PlayerInputs, want[:len(cut.PlayerInputs)])) {
				t.Fatalf("cut at %d of %d: player inputs %+v are not a prefix of %+v", n, len(data), cut.PlayerInputs, want)
			}
		}
	})
}

// TestFormatExamplePlayers decodes the example of version 2 in FORMAT.md, byte for byte, and
// checks a Recorder writes it, but for the version (3).
func TestFormatExamplePlayers(t *testing.T) {
	const example = `
89 47 4C 52 50 0D 0A 1A 02 00
09 00 00 00 09 8B B5 CF 01 04 3C 01 00 00 04 01 00
1F 00 00 00 BE A7 A7 F1 07 03 01 00 05 07 04 01 01 07 00 03 09 01 88 77 66 55 44 33 22 11 07 04 01 01 07 01 05 01 01`
	data := formatExample(t, example)
	got, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := &replay.Recording{
		Header: replay.Header{TickRate: 60, ChecksumEvery: 1},
		PlayerInputs: []replay.PlayerInput{
			{Tick: 1, Player: 0, Data: []byte{0x05}}, {Tick: 1, Player: 1, Data: []byte{0x07, 0x00}}, {Tick: 2, Player: 1, Data: []byte{0x07, 0x01}},
		},
		Checksums: []replay.Checksum{{Tick: 1, Sum: 0x1122334455667788}},
		Ticks:     2,
		Complete:  true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}

	var buf bytes.Buffer
	r, err := replay.NewRecorder(&buf, 60, &replay.RecordOptions{PlayerInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	err = errors.Join(r.PlayerInput(1, 0, []byte{0x05}), r.PlayerInput(1, 1, []byte{0x07, 0x00}),
		r.Tick(&gameloop.Update{Tick: 1, Seconds: 1.0 / 60}, func() uint64 { return 0x1122334455667788 }),
		r.PlayerInput(2, 0, []byte{0x05}), r.PlayerInput(2, 1, []byte{0x07, 0x01}),
		r.Tick(&gameloop.Update{Tick: 2, Seconds: 1.0 / 60}, nil), r.Close())
	want3 := slices.Clone(data)
	want3[8] = replay.Version
	if err != nil || !bytes.Equal(buf.Bytes(), want3) {
		t.Errorf("the Recorder wrote (%v)\n% X\nwant\n% X", err, buf.Bytes(), want3)
	}
}
