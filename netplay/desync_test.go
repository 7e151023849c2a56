package netplay

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/gameloop-go/gameloop/replay"
)

// TestDesyncReported plants a desync (peer 1's game changes its state at tick 250, as a
// non-deterministic simulation would) and checks that both peers report it at the first
// checked tick after, with both checksums, and that their recordings reproduce it: each
// replays matched with the game that made it, and the first tick whose checksums differ
// between the two recordings is the planted one.
func TestDesyncReported(t *testing.T) {
	const plant = 250
	var recs [2]bytes.Buffer
	sm := newSim(t, simConfig{players: 2, ticks: 600, preset: "poor", seed: 11,
		configure: func(h int, cfg *Config[testInput]) { cfg.Record = &recs[h] }})
	sm.peers[1].g.plant = plant
	sm.run()
	interval := uint64(DefaultDesyncInterval)
	at := (plant + interval - 1) / interval * interval
	var sums [2][2]uint64
	for h, p := range sm.peers {
		e, _, ok := p.eventAt(EventDesync, 1-h)
		if !ok {
			t.Fatalf("%s: no desync reported: %v", p.name, p.events)
		}
		t.Logf("%s: %v", p.name, e)
		if e.Tick != at {
			t.Errorf("%s: desync reported at tick %d, want %d", p.name, e.Tick, at)
		}
		sums[h] = [2]uint64{e.Local, e.Remote}
		if err := p.s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if sums[0][0] != sums[1][1] || sums[0][1] != sums[1][0] || sums[0][0] == sums[0][1] {
		t.Errorf("checksums reported: %x at peer0, %x at peer1: want the same two, crossed", sums[0], sums[1])
	}
	// Each recording replays matched with the game that made it.
	for h := range sm.peers {
		g := newTestGame(2, 1, 0, 0)
		if h == 1 {
			g.plant = plant
		}
		res, err := replay.Play(context.Background(), bytes.NewReader(recs[h].Bytes()), NewReplayGame[testInput](g, byteCodec{}, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Matched() || res.Checked < 500 {
			t.Errorf("peer%d's recording: %v", h, res)
		}
	}
	// The two recordings hold the same inputs, and their checksums differ first at the planted tick.
	var dec [2]*replay.Recording
	for h := range dec {
		var err error
		if dec[h], err = replay.Decode(bytes.NewReader(recs[h].Bytes())); err != nil && !errors.Is(err, replay.ErrTruncated) {
			t.Fatal(err)
		}
	}
	n := min(len(dec[0].Checksums), len(dec[1].Checksums))
	first := uint64(0)
	for i := range n {
		a, b := dec[0].Checksums[i], dec[1].Checksums[i]
		if a.Tick != b.Tick {
			t.Fatalf("checksum %d is of tick %d in one recording, %d in the other", i, a.Tick, b.Tick)
		}
		if a.Sum != b.Sum {
			first = a.Tick
			break
		}
	}
	if first != plant {
		t.Errorf("the recordings' checksums first differ at tick %d, want %d", first, plant)
	}
	k := min(len(dec[0].PlayerInputs), len(dec[1].PlayerInputs))
	if k < 10 {
		t.Fatalf("only %d player inputs recorded", k)
	}
	for i := range k {
		a, b := dec[0].PlayerInputs[i], dec[1].PlayerInputs[i]
		if a.Tick != b.Tick || a.Player != b.Player || !bytes.Equal(a.Data, b.Data) {
			t.Fatalf("player input %d: %v in one recording, %v in the other", i, a, b)
		}
	}
}
