package netplay

import (
	"errors"
	"testing"
)

// syncTestGame is the test game with a planted non-determinism from tick 100 on.
type syncTestGame struct {
	*testGame
	plant   string
	unsaved int32           // a field Save forgets ("unsaved")
	m       map[int32]int32 // iterated in Go's random order ("map")
}

func (g *syncTestGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	if err := g.testGame.Step(tick, inputs); err != nil {
		return err
	}
	if tick < 100 {
		return nil
	}
	switch g.plant {
	case "unsaved":
		g.st.pos[0][0] += g.unsaved
		g.unsaved++
	case "map":
		for k, v := range g.m {
			g.st.rng = g.st.rng*31 + uint64(k*v)
		}
	}
	return nil
}

// runSyncTest runs a sync test of the game with the plant for ticks ticks and returns its
// error.
func runSyncTest(t *testing.T, plant string, ticks int) error {
	t.Helper()
	st, err := NewSyncTest(SyncTestConfig[testInput]{Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	g := &syncTestGame{testGame: newTestGame(2, st.Slots(), 1, ticks), plant: plant, m: map[int32]int32{}}
	for i := range int32(64) {
		g.m[i] = i*7 + 1
	}
	for range ticks {
		for h := range 2 {
			if err := st.AddLocalInput(h, bot(uint64(h), h, st.Tick()+1)); err != nil {
				t.Fatal(err)
			}
		}
		reqs, err := st.Advance()
		if err != nil {
			return err
		}
		if err := Run(reqs, Game[testInput](g)); err != nil {
			t.Fatal(err)
		}
	}
	return nil
}

func (g *syncTestGame) LocalInput(int) testInput { return 0 }

func TestSyncTest(t *testing.T) {
	if err := runSyncTest(t, "", 1000); err != nil {
		t.Fatalf("a deterministic game: %v", err)
	}
	for _, tc := range []struct {
		plant    string
		from, to uint64 // the ticks the finding may name
	}{
		// A field Save forgets differs at once when tick 100 runs again.
		{"unsaved", 100, 100},
		// Map order differs between two runs of a tick with a chance of about 1 - 1/64
		// (the iteration's random start): within a few ticks for certain.
		{"map", 100, 106},
	} {
		err := runSyncTest(t, tc.plant, 200)
		var se *SyncError
		if !errors.As(err, &se) {
			t.Fatalf("%s: sync test returned %v, want a *SyncError", tc.plant, err)
		}
		t.Logf("%s: %v", tc.plant, err)
		if se.Tick < tc.from || se.Tick > tc.to || se.First == se.Again || se.From >= se.Tick {
			t.Errorf("%s: %+v, want a tick from %d to %d", tc.plant, se, tc.from, tc.to)
		}
	}
}
