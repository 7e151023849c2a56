package authority

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

const period = time.Second / 60

func newMatch(t testing.TB, cfg Config) *Match {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tick(t testing.TB, m *Match, tk uint64) ([]byte, wire.HandleSet, wire.HandleSet) {
	t.Helper()
	dst := make([]byte, m.cfg.Slots*m.cfg.InputSize)
	rep, drop, ok := m.Tick(tk, dst)
	if !ok {
		t.Fatalf("tick %d not kept (confirmed %d, oldest %d)", tk, m.Confirmed(), m.Oldest())
	}
	return dst, rep, drop
}

// Inputs that arrive before their tick's deadline count as sent; a tick is confirmed once its
// time has come, not before.
func TestInputsInTime(t *testing.T) {
	m := newMatch(t, Config{Slots: 2, InputSize: 1, TickRate: 60})
	m.Start(0)
	for k := uint64(1); k <= 10; k++ {
		now := time.Duration(k-1) * period
		for s := range 2 {
			if v, err := m.Input(now, s, k, []byte{byte(10*s) + byte(k)}); v != Accepted || err != nil {
				t.Fatalf("tick %d slot %d: %v, %v", k, s, v, err)
			}
		}
		if n := m.Advance(now + period - 1); n != 0 {
			t.Fatalf("tick %d confirmed before its time", k)
		}
		if n := m.Advance(now + period); n != 1 || m.Confirmed() != k {
			t.Fatalf("at tick %d's time: %d confirmed, last %d", k, n, m.Confirmed())
		}
		in, rep, drop := tick(t, m, k)
		if !bytes.Equal(in, []byte{byte(k), 10 + byte(k)}) || rep != 0 || drop != 0 {
			t.Errorf("tick %d: %v, replaced %b, dropped %b", k, in, rep, drop)
		}
	}
	if st := m.Stats(); st.Accepted != 20 || st.Replaced != 0 || st.Confirmed != 10 {
		t.Errorf("stats %+v", st)
	}
}

// A missing input is the player's last one again, marked replaced; the input arriving after
// its tick is decided is late and changes nothing; a second input for a tick does not replace
// the first (a replayed packet cannot rewrite what a player sent).
func TestLateDuplicateAndEarly(t *testing.T) {
	m := newMatch(t, Config{Slots: 2, InputSize: 2, TickRate: 60, Window: 4})
	m.Start(0)
	m.Input(0, 0, 1, []byte{1, 1})
	m.Input(0, 1, 1, []byte{2, 2})
	m.Input(0, 0, 2, []byte{3, 3})
	if v, _ := m.Input(0, 0, 2, []byte{9, 9}); v != Duplicate {
		t.Errorf("a second input for tick 2: %v", v)
	}
	if v, _ := m.Input(0, 0, 5, []byte{5, 5}); v != TooEarly {
		t.Errorf("an input 5 ticks ahead with a window of 4: %v", v)
	}
	m.Advance(2 * period) // slot 1's input for tick 2 never came
	if v, _ := m.Input(2*period, 1, 2, []byte{7, 7}); v != Late {
		t.Errorf("an input for a confirmed tick: %v", v)
	}
	in, rep, _ := tick(t, m, 2)
	if !bytes.Equal(in, []byte{3, 3, 2, 2}) || rep != 1<<1 {
		t.Errorf("tick 2: %v replaced %b, want [3 3 2 2] and slot 1 replaced", in, rep)
	}
	// Before any input, a replaced input is the zero input.
	m2 := newMatch(t, Config{Slots: 1, InputSize: 1, TickRate: 60})
	m2.Start(0)
	m2.Advance(period)
	if in, rep, _ := tick(t, m2, 1); in[0] != 0 || rep != 1 {
		t.Errorf("tick 1 with no input: %v replaced %b", in, rep)
	}
}

// A player unheard for Timeout is dropped from the next tick; its earlier ticks stand; every
// tick after is the zero input, marked dropped, whatever it sends. Drop does the same at once.
func TestDrops(t *testing.T) {
	m := newMatch(t, Config{Slots: 3, InputSize: 1, TickRate: 60, Timeout: time.Second})
	m.Start(0)
	var now time.Duration
	for k := uint64(1); k <= 120; k++ {
		m.Input(now, 0, k, []byte{1})
		if k <= 30 {
			m.Input(now, 1, k, []byte{2})
		}
		m.Input(now, 2, k, []byte{3})
		if k == 90 {
			m.Drop(2)
		}
		now += period
		m.Advance(now)
	}
	cut1, ok1 := m.Cutoff(1)
	cut2, ok2 := m.Cutoff(2)
	if !ok1 || !ok2 || m.Dropped() != 0b110 {
		t.Fatalf("dropped %b", m.Dropped())
	}
	// Slot 1 was last heard sending tick 30, at 29 periods; its timeout runs out a second
	// later, and the first Advance after drops it.
	if want := uint64(29 + 60 + 1); cut1 < want-1 || cut1 > want+1 {
		t.Errorf("slot 1 cut off after tick %d, want about %d", cut1, want)
	}
	if cut2 != 89 {
		t.Errorf("slot 2 cut off after tick %d, want 89 (the last confirmed when it was dropped)", cut2)
	}
	for k := uint64(1); k <= 120; k++ {
		in, _, drop := tick(t, m, k)
		if (k > cut1) != drop.Has(1) || (k > cut2) != drop.Has(2) {
			t.Errorf("tick %d dropped %b", k, drop)
		}
		if k > cut1 && in[1] != 0 || k > cut2 && in[2] != 0 || in[0] != 1 {
			t.Errorf("tick %d: %v", k, in)
		}
		if k <= cut2 && in[2] != 3 {
			t.Errorf("tick %d before slot 2's cutoff: %v", k, in)
		}
	}
	if v, _ := m.Input(now, 2, m.Confirmed()+1, []byte{3}); v != Dropped {
		t.Errorf("an input from a dropped slot: %v", v)
	}
	if st := m.Stats(); st.TimedOut != 1 || st.Kicked != 1 {
		t.Errorf("stats %+v", st)
	}
}

// Only History ticks are kept; a stalled relay confirms every tick due at once, each decided
// as if on time (the inputs that came count, the rest are replaced).
func TestHistoryAndStall(t *testing.T) {
	m := newMatch(t, Config{Slots: 1, InputSize: 1, TickRate: 60, Window: 8, History: 8})
	m.Start(0)
	for k := uint64(1); k <= 8; k++ {
		m.Input(0, 0, k, []byte{byte(k)})
	}
	if n := m.Advance(20 * period); n != 20 {
		t.Fatalf("%d ticks confirmed after 20 periods", n)
	}
	if m.Oldest() != 13 {
		t.Errorf("oldest %d, want 13", m.Oldest())
	}
	if _, _, ok := m.Tick(12, make([]byte, 1)); ok {
		t.Errorf("tick 12 still kept with a history of 8")
	}
	if in, rep, _ := tick(t, m, 20); in[0] != 8 || rep != 1 {
		t.Errorf("tick 20: %v replaced %b, want the last input (8) again", in, rep)
	}
}

// The clock's arithmetic holds at its limits: a second-long period, an origin near the end of
// a Duration, ticks up to wire.MaxTick.
func TestClockLimits(t *testing.T) {
	m := newMatch(t, Config{Slots: 1, InputSize: 1, TickRate: 1, Window: 1, History: 1})
	start := time.Duration(math.MaxInt64 - int64(10*time.Second))
	m.Start(start)
	if d := m.NextDeadline(); d != start+time.Second {
		t.Errorf("next deadline %v, want %v", d, start+time.Second)
	}
	m.Advance(time.Duration(math.MaxInt64))
	if m.Confirmed() != 10 {
		t.Errorf("%d confirmed, want 10", m.Confirmed())
	}
	m2 := newMatch(t, Config{Slots: 1, InputSize: 1, TickRate: 1000, Window: 1, History: 1})
	m2.Start(0)
	m2.confirmed = wire.MaxTick - 1
	m2.Advance(time.Duration(math.MaxInt64))
	if m2.Confirmed() != wire.MaxTick {
		t.Errorf("confirmed %d, want it to stop at wire.MaxTick", m2.Confirmed())
	}
	if d := m2.NextDeadline(); d != math.MaxInt64 {
		t.Errorf("next deadline after wire.MaxTick: %v", d)
	}
}

// Bad configurations and calls are errors that name what is wrong.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Slots: 0, InputSize: 1, TickRate: 60}, "Slots"},
		{Config{Slots: 9, InputSize: 1, TickRate: 60}, "Slots"},
		{Config{Slots: 2, InputSize: 0, TickRate: 60}, "InputSize"},
		{Config{Slots: 2, InputSize: 1, TickRate: 0}, "TickRate"},
		{Config{Slots: 2, InputSize: 1, TickRate: 60, Window: MaxWindow + 1}, "Window"},
		{Config{Slots: 2, InputSize: 1, TickRate: 60, Timeout: -1}, "Timeout"},
		{Config{Slots: 2, InputSize: 1, TickRate: 60, Window: 64, History: 10}, "History"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
	m := newMatch(t, Config{Slots: 2, InputSize: 2, TickRate: 60})
	if v, err := m.Input(0, 0, 1, []byte{1, 2}); v != NotStarted || err != nil {
		t.Errorf("an input before Start: %v, %v", v, err)
	}
	m.Start(0)
	if err := m.Start(0); err != ErrStarted {
		t.Errorf("Start twice: %v", err)
	}
	if _, err := m.Input(0, 2, 1, []byte{1, 2}); err != ErrSlot {
		t.Errorf("slot 2 of 2: %v", err)
	}
	if _, err := m.Input(0, 0, 1, []byte{1}); err == nil {
		t.Errorf("an input of the wrong size: no error")
	}
	if err := m.Drop(-1); err != ErrSlot {
		t.Errorf("Drop(-1): %v", err)
	}
}

// Input, Advance and Tick allocate nothing.
func TestNoAllocations(t *testing.T) {
	m := newMatch(t, Config{Slots: 4, InputSize: 4, TickRate: 60})
	m.Start(0)
	in, dst := make([]byte, 4), make([]byte, 16)
	var k uint64
	allocs := testing.AllocsPerRun(1000, func() {
		k++
		for s := range 4 {
			m.Input(time.Duration(k)*period, s, k+2, in)
		}
		m.Advance(time.Duration(k) * period)
		m.Tick(k, dst)
	})
	if allocs != 0 {
		t.Errorf("%v allocations a tick", allocs)
	}
}

// FuzzMatch plays random inputs, stalls, drops and acknowledgements against a model of the
// rules: each confirmed tick holds, for each slot, the zero input once it is dropped, else the
// first input it sent for the tick before the tick was confirmed, else its input in the tick
// before (marked replaced); confirmed ticks never change; ticks are confirmed once each, in
// order, on time.
func FuzzMatch(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 200, 30, 40, 255, 7})
	f.Add([]byte{9, 9, 9, 9, 9, 9, 1, 1, 1, 1, 255, 255, 0, 0, 3})
	f.Add([]byte{0x3b, 5, 2, 40, 3, 0x41, 0, 1, 4, 2, 2, 40, 3, 0x42, 2, 0x80, 2, 9, 3, 0x81, 2, 200})
	f.Add([]byte{1, 0x83, 2, 30, 0, 0, 2, 40, 4, 1, 2, 0x80, 2, 90, 2, 90})
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, ops []byte) {
	{
		if len(ops) < 2 {
			return
		}
		slots := int(ops[0])%wire.MaxPlayers + 1
		window := int(ops[1])%16 + 1
		grace := time.Duration(ops[1]>>6) * 4 * period // 0, 4, 8 or 12 ticks
		m := newMatch(t, Config{Slots: slots, InputSize: 1, TickRate: 60, Window: window, History: window + 16, Timeout: 20 * period, StartGrace: grace})
		vacant := wire.HandleSet(ops[0]/8) & (1<<slots - 1) // slots with no player at the start
		if err := m.StartVacant(0, vacant); err != nil {
			t.Fatal(err)
		}
		// fresh: the slots there at the start whose first input has not come, for which the
		// clock waits (until grace at the most); clock: when it started.
		var fresh wire.HandleSet
		if grace > 0 {
			fresh = wire.HandleSet(1<<slots-1) &^ vacant
		}
		var clock time.Duration
		arrived := func(s wire.HandleSet, now time.Duration) {
			if fresh != 0 && fresh&s != 0 {
				if fresh &^= s; fresh == 0 {
					clock = now
				}
			}
		}
		joinedAt := make([]uint64, slots) // each slot's first tick with its own input; 0: none yet
		for s := range slots {
			if !vacant.Has(s) {
				joinedAt[s] = 1
			}
		}
		// out reports whether slot s has no input of its own at tick k: vacant then, or
		// dropped before.
		out := func(s int, k uint64) bool {
			if cut, ok := m.Cutoff(s); ok && k > cut {
				return true
			}
			return joinedAt[s] == 0 || k < joinedAt[s]
		}
		type key struct {
			s int
			k uint64
		}
		sent := map[key]byte{}         // the first input of each slot and tick, sent in time
		decided := map[uint64][]byte{} // each tick as confirmed
		last := make([]byte, slots)    // each slot's input in the last tick confirmed
		var now time.Duration
		for i := 2; i+1 < len(ops); i += 2 {
			op, arg := ops[i], ops[i+1]
			switch op % 4 {
			case 0, 1: // an input
				s := int(arg) % slots
				k := m.Confirmed() + uint64(op/4)%uint64(window+2)
				v, err := m.Input(now, s, k, []byte{arg})
				if err != nil {
					t.Fatal(err)
				}
				if !m.gone.Has(s) && joinedAt[s] != 0 {
					arrived(1<<s, now)
				}
				wantV := Accepted
				_, dup := sent[key{s, k}]
				switch {
				case m.gone.Has(s):
					wantV = Dropped
				case joinedAt[s] == 0:
					wantV = Vacant
				case k <= m.Confirmed():
					wantV = Late
				case k > m.Confirmed()+uint64(window):
					wantV = TooEarly
				case dup:
					wantV = Duplicate
				}
				if v != wantV {
					t.Fatalf("slot %d tick %d (confirmed %d): %v, want %v", s, k, m.Confirmed(), v, wantV)
				}
				if v == Accepted {
					sent[key{s, k}] = arg
				}
			case 2: // time passes, or the ticks ready are confirmed
				before := m.Confirmed()
				var n int
				if arg&0x80 != 0 {
					n = m.ConfirmReady()
					for k := before + 1; k <= m.Confirmed(); k++ {
						for s := range slots {
							if _, ok := sent[key{s, k}]; !ok && !out(s, k) {
								t.Fatalf("tick %d confirmed early without slot %d's input", k, s)
							}
						}
					}
					if k := m.Confirmed() + 1; (m.gone | m.vacant).Len() < slots {
						ready := true
						for s := range slots {
							if _, ok := sent[key{s, k}]; !ok && !out(s, k) {
								ready = false
							}
						}
						if ready {
							t.Fatalf("tick %d ready but not confirmed (%d confirmed early)", k, n)
						}
					}
				} else {
					now += time.Duration(arg) * period / 8
					n = m.Advance(now)
					arrived(m.gone, now) // timed out
					if fresh != 0 && now >= grace {
						fresh, clock = 0, grace // the grace is over
					}
					want := before
					if fresh == 0 && now >= clock {
						want = max(uint64((now-clock)/period), before)
					}
					if m.Confirmed() != want || uint64(n) != want-before {
						t.Fatalf("at %v: confirmed %d (+%d), want %d (slots %b yet to give an input, grace %v, clock from %v)", now, m.Confirmed(), n, want, fresh, grace, clock)
					}
					if due := m.Due(now); fresh != 0 && due != 0 || fresh == 0 && now >= clock && due != uint64((now-clock)/period) {
						t.Fatalf("at %v: Due %d, the clock from %v (waiting for %b)", now, due, clock, fresh)
					}
					if d := m.NextDeadline(); fresh != 0 && d != grace {
						t.Fatalf("at %v, waiting: the next deadline %v, want the grace's end %v", now, d, grace)
					}
				}
				for k := before + 1; k <= m.Confirmed(); k++ {
					want := make([]byte, slots)
					var wantRep wire.HandleSet
					var wantOut wire.HandleSet
					for s := range slots {
						if out(s, k) {
							want[s] = 0
							wantOut |= 1 << s
						} else if v, ok := sent[key{s, k}]; ok {
							want[s] = v
						} else {
							wantRep |= 1 << s
							want[s] = last[s]
						}
						last[s] = want[s]
					}
					decided[k] = want
					if k < m.Oldest() {
						continue // decided and forgotten during the stall
					}
					in, rep, drop := tick(t, m, k)
					if !bytes.Equal(in, want) || rep != wantRep || drop != wantOut {
						t.Fatalf("tick %d: %v replaced %b (dropped %b), want %v replaced %b", k, in, rep, drop, want, wantRep)
					}
				}
			case 3: // a slot heard, dropped, or joined
				s := int(arg) % slots
				switch {
				case arg&0x80 != 0:
					m.Drop(s)
					arrived(1<<s, now)
				case arg&0x40 != 0:
					first, err := m.Join(now, s)
					if wantErr := joinedAt[s] != 0 || m.gone.Has(s); (err != nil) != wantErr {
						t.Fatalf("Join(%d): %v, the slot joined at %d, dropped %v", s, err, joinedAt[s], m.gone.Has(s))
					}
					if err == nil {
						if first != m.Confirmed()+1 || m.Joined(s) != first {
							t.Fatalf("Join(%d) = %d (Joined %d), confirmed %d", s, first, m.Joined(s), m.Confirmed())
						}
						joinedAt[s] = first
					}
				default:
					m.Heard(now, s)
				}
			}
			for s := range slots {
				want := m.Confirmed()
				for !m.gone.Has(s) && joinedAt[s] != 0 && want < m.Confirmed()+uint64(window) {
					if _, ok := sent[key{s, want + 1}]; !ok {
						break
					}
					want++
				}
				if got := m.Have(s); got != want {
					t.Fatalf("Have(%d) = %d, want %d (confirmed %d)", s, got, want, m.Confirmed())
				}
			}
			for k := m.Oldest(); k >= 1 && k <= m.Confirmed(); k++ {
				if in, _, _ := tick(t, m, k); !bytes.Equal(in, decided[k]) {
					t.Fatalf("tick %d changed: %v, was %v", k, in, decided[k])
				}
			}
		}
	}
}

// A slot vacant at the start: its input is the zero input, marked dropped; no tick waits for
// it and it never times out; once joined, its inputs count from the tick after the last
// confirmed, the ones missing replaced by the zero input as any late input is.
func TestVacantJoin(t *testing.T) {
	m := newMatch(t, Config{Slots: 3, InputSize: 1, TickRate: 60, Timeout: 10 * period})
	if err := m.StartVacant(0, 0b100); err != nil {
		t.Fatal(err)
	}
	if m.Vacant() != 0b100 || m.Joined(0) != 1 || m.Joined(2) != 0 {
		t.Fatalf("vacant %b, joined %d, %d", m.Vacant(), m.Joined(0), m.Joined(2))
	}
	if v, _ := m.Input(0, 2, 1, []byte{9}); v != Vacant {
		t.Fatalf("a vacant slot's input: %v", v)
	}
	for k := uint64(1); k <= 30; k++ {
		m.Input(time.Duration(k)*period, 0, k, []byte{1})
		m.Input(time.Duration(k)*period, 1, k, []byte{2})
		if n := m.ConfirmReady(); n != 1 {
			t.Fatalf("tick %d: %d confirmed early, want the tick without the vacant slot's input", k, n)
		}
	}
	if m.Advance(30*period) != 0 || m.Dropped() != 0 {
		t.Fatalf("dropped %b after 30 ticks: the vacant slot timed out", m.Dropped())
	}
	in, rep, drop := tick(t, m, 30)
	if !bytes.Equal(in, []byte{1, 2, 0}) || rep != 0 || drop != 0b100 {
		t.Fatalf("tick 30: %v replaced %b dropped %b", in, rep, drop)
	}
	first, err := m.Join(30*period, 2)
	if err != nil || first != 31 || m.Joined(2) != 31 || m.Vacant() != 0 {
		t.Fatalf("Join: %d, %v; joined %d, vacant %b", first, err, m.Joined(2), m.Vacant())
	}
	if _, err := m.Join(30*period, 2); err != ErrNotVacant {
		t.Fatalf("Join of a joined slot: %v", err)
	}
	m.Input(31*period, 0, 31, []byte{1})
	m.Input(31*period, 1, 31, []byte{2})
	if m.ConfirmReady() != 0 {
		t.Fatal("tick 31 confirmed without the joined slot's input")
	}
	m.Advance(31 * period)
	if in, rep, drop := tick(t, m, 31); !bytes.Equal(in, []byte{1, 2, 0}) || rep != 0b100 || drop != 0 {
		t.Fatalf("tick 31: %v replaced %b dropped %b", in, rep, drop)
	}
	m.Input(31*period, 2, 32, []byte{3})
	m.Advance(32 * period)
	if in, _, _ := tick(t, m, 32); !bytes.Equal(in, []byte{1, 2, 3}) {
		t.Fatalf("tick 32: %v", in)
	}
	if err := m.Drop(2); err != nil {
		t.Fatal(err)
	}
	if cut, _ := m.Cutoff(2); cut != 32 {
		t.Fatalf("cutoff %d", cut)
	}
	// A vacant slot dropped: closed, cutoff 0.
	m2 := newMatch(t, Config{Slots: 2, InputSize: 1, TickRate: 60})
	m2.StartVacant(0, 0b10)
	m2.Drop(1)
	if cut, ok := m2.Cutoff(1); !ok || cut != 0 || m2.Vacant() != 0 {
		t.Fatalf("a vacant slot dropped: cutoff %d %v, vacant %b", cut, ok, m2.Vacant())
	}
	if _, err := m2.Join(0, 1); err != ErrNotVacant {
		t.Fatalf("Join of a closed slot: %v", err)
	}
}

// TestStartGrace: the clock waits, StartGrace at the most, for the first input of every
// player there at the start; meanwhile no tick is due, and the ticks whose inputs are all in
// are confirmed; then it runs from the moment the last first input came. A player that sends
// nothing holds it only until the grace is over.
func TestStartGrace(t *testing.T) {
	m := newMatch(t, Config{Slots: 2, InputSize: 1, TickRate: 60, StartGrace: 10 * period})
	if err := m.Start(0); err != nil {
		t.Fatal(err)
	}
	for k := uint64(1); k <= 8; k++ {
		m.Input(0, 0, k, []byte{1})
	}
	if n := m.Advance(6 * period); n != 0 || m.Due(6*period) != 0 || m.NextDeadline() != 10*period {
		t.Fatalf("6 ticks in, slot 1 unheard: %d confirmed, clock %d, next deadline %v; want 0, 0, the grace's end", n, m.Due(6*period), m.NextDeadline())
	}
	for k := uint64(1); k <= 8; k++ { // the far player's first inputs, a round trip late
		m.Input(6*period, 1, k, []byte{2})
	}
	if n := m.ConfirmReady(); n != 8 {
		t.Fatalf("confirmed %d once every input of ticks 1-8 was in, want 8", n)
	}
	for k := uint64(1); k <= 8; k++ {
		if in, rep, _ := tick(t, m, k); rep != 0 || in[1] != 2 {
			t.Fatalf("tick %d: %v, replaced %b: want slot 1's own input", k, in, rep)
		}
	}
	if due := m.Due(6*period + 3*period); due != 3 {
		t.Fatalf("3 ticks after the clock started: Due %d", due)
	}

	silent := newMatch(t, Config{Slots: 2, InputSize: 1, TickRate: 60, StartGrace: 10 * period})
	if err := silent.Start(0); err != nil {
		t.Fatal(err)
	}
	if n := silent.Advance(9 * period); n != 0 {
		t.Fatalf("within the grace: %d confirmed", n)
	}
	if n := silent.Advance(15 * period); n != 5 || silent.Stats().Replaced != 10 {
		t.Fatalf("5 ticks after the grace's end: %d confirmed, %d replaced; want 5 and 10", n, silent.Stats().Replaced)
	}
}
