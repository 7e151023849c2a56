package netplay

import "fmt"

// DefaultCheckDistance is SyncTestConfig.CheckDistance when it is 0.
const DefaultCheckDistance = 2

// SyncTestConfig describes a SyncTest.
type SyncTestConfig[I comparable] struct {
	// Players is the number of players, 1 to MaxPlayers; all are local.
	Players int
	// CheckDistance is how many ticks back the test rolls every tick, 1 to
	// MaxPredictionWindow. 0 means DefaultCheckDistance.
	CheckDistance int
	// InputDelay is as in Config.
	InputDelay int
}

// SyncTest is a session with no network, to test that a game is deterministic and saves and
// loads all of its state: every tick it runs the tick, then goes back CheckDistance ticks and
// runs them again, and compares the checksums of the states saved the first time and the
// second. Any difference (map iteration order, a clock read, a field Save forgets) is reported
// at the first tick it shows in, as a *SyncError. Its requests are carried out as a Session's
// (see Run); every input is Confirmed.
//
// Each tick costs the game CheckDistance+1 updates, saves and a load: run it in tests, or in a
// debug mode of the game.
type SyncTest[I comparable] struct {
	players, distance, delay int
	tick                     uint64
	in                       []I // by tick mod ring, then handle
	pending                  []I
	reqs                     []Request[I]
	again                    []bool // whether reqs[i], a Save, is of a tick run again
	from                     uint64 // the tick loaded to run ticks again
	inputs                   []PlayerInput[I]
	first                    [ring]uint64 // the checksum of each tick's first run
}

// SyncError is a SyncTest's finding: the state after Tick had checksum First when the tick was
// first run and Again when it was run again from the state after tick From.
type SyncError struct {
	Tick, From   uint64
	First, Again uint64
}

func (e *SyncError) Error() string {
	return fmt.Sprintf("netplay: sync test: the state after tick %d differs when run again from tick %d "+
		"(checksum %#016x, then %#016x): the game is not deterministic, or Save and Load miss part of its state",
		e.Tick, e.From, e.First, e.Again)
}

// NewSyncTest returns a sync test for cfg.
func NewSyncTest[I comparable](cfg SyncTestConfig[I]) (*SyncTest[I], error) {
	switch {
	case cfg.Players < 1 || cfg.Players > MaxPlayers:
		return nil, fmt.Errorf("netplay: SyncTestConfig.Players = %d: must be 1 to %d", cfg.Players, MaxPlayers)
	case cfg.CheckDistance < 0 || cfg.CheckDistance > MaxPredictionWindow:
		return nil, fmt.Errorf("netplay: SyncTestConfig.CheckDistance = %d: must be 0 (the default) to %d", cfg.CheckDistance, MaxPredictionWindow)
	case cfg.InputDelay < 0 || cfg.InputDelay > MaxInputDelay:
		return nil, fmt.Errorf("netplay: SyncTestConfig.InputDelay = %d: must be 0 to %d", cfg.InputDelay, MaxInputDelay)
	}
	d := cfg.CheckDistance
	if d == 0 {
		d = DefaultCheckDistance
	}
	n := cfg.Players
	return &SyncTest[I]{
		players: n, distance: d, delay: cfg.InputDelay,
		in:      make([]I, ring*n),
		pending: make([]I, n),
		reqs:    make([]Request[I], 0, 2*d+3),
		again:   make([]bool, 0, 2*d+3),
		inputs:  make([]PlayerInput[I], n*(d+2)),
	}, nil
}

// AddLocalInput sets the input of player handle for the next tick (InputDelay ticks later);
// a player with no input added repeats its last.
func (t *SyncTest[I]) AddLocalInput(handle int, in I) error {
	if handle < 0 || handle >= t.players {
		return fmt.Errorf("netplay: AddLocalInput: handle %d is not a player's (0 to %d)", handle, t.players-1)
	}
	t.pending[handle] = in
	return nil
}

// Advance checks the checksums saved by the requests of the last call (a *SyncError if the
// state after a tick run twice differs) and returns the requests of the next tick: Advance and
// Save for it, then a Load of the state CheckDistance ticks back, and Advance and Save for each
// tick since. The slice is valid until the next call.
func (t *SyncTest[I]) Advance() ([]Request[I], error) {
	var bad *SyncError
	for i := range t.reqs {
		r := &t.reqs[i]
		if r.Kind != Save {
			continue
		}
		if !t.again[i] {
			t.first[r.Tick%ring] = r.Checksum
		} else if first := t.first[r.Tick%ring]; first != r.Checksum && bad == nil {
			bad = &SyncError{Tick: r.Tick, From: t.from, First: first, Again: r.Checksum}
		}
	}
	t.reqs, t.again = t.reqs[:0], t.again[:0]
	if bad != nil {
		return nil, bad
	}
	next := t.tick + 1
	at := (next + uint64(t.delay)) % ring
	copy(t.in[int(at)*t.players:][:t.players], t.pending)
	used := t.request(next, 0, false)
	if next > uint64(t.distance) {
		t.from = next - uint64(t.distance)
		t.reqs = append(t.reqs, Request[I]{Kind: Load, Tick: t.from, Slot: t.slot(t.from)})
		t.again = append(t.again, true)
		for tick := t.from + 1; tick <= next; tick++ {
			used = t.request(tick, used, true)
		}
	}
	t.tick = next
	return t.reqs, nil
}

// request appends Advance and Save requests for tick, with inputs from t.inputs[used:], and
// returns how many are used.
func (t *SyncTest[I]) request(tick uint64, used int, again bool) int {
	ins := t.inputs[used : used+t.players : used+t.players]
	used += t.players
	if tick <= uint64(t.delay) {
		clear(ins) // the ticks before the delay run with the zero input
	} else {
		src := t.in[int(tick%ring)*t.players:][:t.players]
		for h := range ins {
			ins[h] = PlayerInput[I]{Input: src[h], Status: Confirmed}
		}
	}
	t.reqs = append(t.reqs,
		Request[I]{Kind: Advance, Tick: tick, Slot: t.slot(tick), Inputs: ins},
		Request[I]{Kind: Save, Tick: tick, Slot: t.slot(tick)})
	t.again = append(t.again, again, again)
	return used
}

func (t *SyncTest[I]) slot(tick uint64) int { return int(tick % uint64(t.distance+2)) }

// Slots returns the number of state slots the game needs: CheckDistance + 2.
func (t *SyncTest[I]) Slots() int { return t.distance + 2 }

// Tick returns the last tick run.
func (t *SyncTest[I]) Tick() uint64 { return t.tick }
