package netsim

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		c    Conditions
		want string
	}{
		{Conditions{Latency: -1}, "Latency -1ns"},
		{Conditions{Latency: MaxDelay + 1}, "Latency 1m0.000000001s"},
		{Conditions{Jitter: -ms}, "Jitter -1ms"},
		{Conditions{ReorderDelay: 2 * time.Minute}, "ReorderDelay 2m0s"},
		{Conditions{Loss: 1.5}, "Loss 1.5"},
		{Conditions{Loss: math.NaN()}, "Loss NaN"},
		{Conditions{Dup: -0.1}, "Dup -0.1"},
		{Conditions{Reorder: math.Inf(1)}, "Reorder +Inf"},
		{Conditions{BurstLoss: 2, BurstLen: 1}, "BurstLoss 2"},
		{Conditions{BurstLen: -1}, "BurstLen -1"},
		{Conditions{BurstLen: MaxBurstLen + 1}, "BurstLen 1001"},
		{Conditions{BurstLoss: 0.5}, "BurstLoss 0.5 is set but BurstLen is 0"},
	} {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate() = %v, want an error naming %q", tc.c, err, tc.want)
		}
	}
	two := Conditions{Loss: 2, Jitter: -1}.Validate()
	if two == nil || !strings.Contains(two.Error(), "Loss") || !strings.Contains(two.Error(), "Jitter") {
		t.Errorf("two bad fields: Validate() = %v, want both named", two)
	}
	ok := Conditions{Latency: MaxDelay, Jitter: MaxDelay, Loss: 1, Dup: 1, Reorder: 1, BurstLoss: 1, BurstLen: MaxBurstLen, ReorderDelay: MaxDelay}
	if err := ok.Validate(); err != nil {
		t.Errorf("the largest accepted settings: %v", err)
	}
}

func TestPresets(t *testing.T) {
	want := map[string]struct {
		latency, jitter time.Duration
		loss            float64
		bursts          bool
	}{
		"none":             {0, 0, 0, false},
		"poor":             {100 * ms, 50 * ms, 0.05, false},
		"terrible":         {250 * ms, 100 * ms, 0.15, false},
		"mobile":           {60 * ms, 40 * ms, 0.12, true},
		"intercontinental": {120 * ms, 15 * ms, 0.02, false},
	}
	names := PresetNames()
	if len(names) != len(want) {
		t.Fatalf("PresetNames() = %v, want %d names", names, len(want))
	}
	for _, name := range names {
		c, err := Preset(name)
		if err != nil {
			t.Fatalf("Preset(%q): %v", name, err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Preset(%q) is not valid: %v", name, err)
		}
		w, ok := want[name]
		if !ok || c.Latency != w.latency || c.Jitter != w.jitter || c.Loss != w.loss || (c.BurstLoss > 0) != w.bursts {
			t.Errorf("Preset(%q) = %+v, want %+v", name, c, w)
		}
	}
	if _, err := Preset("lunar"); err == nil || !strings.Contains(err.Error(), "lunar") || !strings.Contains(err.Error(), "intercontinental") {
		t.Errorf("Preset(lunar): %v, want an error naming it and the known presets", err)
	}
}

// outcome is what a Link did to one packet.
type outcome struct {
	at [2]time.Duration
	n  int
}

func sendAll(l *Link, count int, spacing time.Duration) []outcome {
	out := make([]outcome, count)
	for i := range out {
		out[i].at, out[i].n = l.Send(time.Duration(i)*spacing, 100)
	}
	return out
}

// within reports whether an observed count of events is within 5 standard deviations of its
// expectation under a binomial(n, p): for a fixed seed the test cannot flake, and a model off
// by much more than noise fails it.
func within(t *testing.T, what string, got int64, n int, p float64) {
	t.Helper()
	mean := float64(n) * p
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if math.Abs(float64(got)-mean) > 5*sd+1 {
		t.Errorf("%s: %d of %d, want %.0f ± %.0f (5 sd)", what, got, n, mean, 5*sd)
	}
}

func TestLinkLossRate(t *testing.T) {
	const n = 100_000
	for _, p := range []float64{0, 0.02, 0.15, 0.5, 1} {
		l := NewLink(Conditions{Loss: p}, 7)
		dropped := 0
		for _, o := range sendAll(l, n, ms) {
			if o.n == 0 {
				dropped++
			}
		}
		within(t, "dropped", int64(dropped), n, p)
		if s := l.Stats(); s.Dropped != int64(dropped) || s.Packets != n || s.Bytes != 100*n {
			t.Errorf("Loss %v: Stats() = %+v, want %d dropped of %d packets, %d bytes", p, s, dropped, n, 100*n)
		}
	}
}

func TestLinkBurstLoss(t *testing.T) {
	const n = 200_000
	c, err := Preset("mobile")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLink(c, 11)
	out := sendAll(l, n, ms)
	dropped, run, runs := 0, 0, map[int]int{}
	for _, o := range out {
		if o.n == 0 {
			dropped++
			run++
			continue
		}
		if run > 0 {
			runs[run]++
		}
		run = 0
	}
	// Bursts make losses come in runs, so the count varies more than a binomial's; the long-run
	// rate still has to match the model's, within a wider margin.
	if got, want := float64(dropped)/n, c.LossRate(); math.Abs(got-want) > 0.005 {
		t.Errorf("mobile drops %.4f of packets, want LossRate %.4f", got, want)
	}
	// A run of BurstLen+1 or more needs a burst: without bursts it would be as rare as
	// Loss^(BurstLen+1) per packet, ~40 in 200,000; bursts start at Loss*BurstLoss, ~2,400.
	long := 0
	for length, k := range runs {
		if length > c.BurstLen {
			long += k
		}
	}
	if long < 1500 {
		t.Errorf("%d runs of more than %d losses, want the ~2,000 that bursts make; runs: %v", long, c.BurstLen, runs)
	}
}

func TestLinkJitterBounds(t *testing.T) {
	for _, c := range []Conditions{
		{Latency: 100 * ms, Jitter: 50 * ms},
		{Latency: 10 * ms, Jitter: 30 * ms}, // would go below 0
		{Latency: 5 * ms},
		{Jitter: 1},
	} {
		l := NewLink(c, 3)
		lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
		for i, o := range sendAll(l, 20_000, ms) {
			d := o.at[0] - time.Duration(i)*ms
			lo, hi = min(lo, d), max(hi, d)
		}
		wantLo, wantHi := max(c.Latency-c.Jitter, 0), c.Latency+c.Jitter
		if lo != wantLo && (lo < wantLo || lo > wantLo+c.Jitter/100) {
			t.Errorf("%v: shortest delay %v, want at least and about %v", c, lo, wantLo)
		}
		if hi > wantHi || hi < wantHi-c.Jitter/100 {
			t.Errorf("%v: longest delay %v, want at most and about %v", c, hi, wantHi)
		}
	}
}

func TestLinkDupAndReorder(t *testing.T) {
	const n = 50_000
	c := Conditions{Latency: 20 * ms, Dup: 0.1, Reorder: 0.05, ReorderDelay: 10 * ms}
	l := NewLink(c, 5)
	out := sendAll(l, n, ms)
	var dups, held int64
	type arrival struct {
		at   time.Duration
		sent int
	}
	var arrivals []arrival
	for i, o := range out {
		sent := time.Duration(i) * ms
		switch o.n {
		case 2:
			dups++
			if o.at[0] > o.at[1] {
				t.Fatalf("packet %d: copies at %v, not in ascending order", i, o.at)
			}
		case 0:
			t.Fatalf("packet %d dropped with no loss", i)
		}
		// With no jitter a copy arrives at Latency, or Latency+ReorderDelay if held back.
		for _, at := range o.at[:o.n] {
			switch at - sent {
			case c.Latency:
			case c.Latency + c.ReorderDelay:
				held++
			default:
				t.Fatalf("packet %d: delay %v, want %v or %v", i, at-sent, c.Latency, c.Latency+c.ReorderDelay)
			}
			arrivals = append(arrivals, arrival{at, i})
		}
	}
	within(t, "duplicated", dups, n, c.Dup)
	within(t, "held back", held, n, c.Reorder)
	if s := l.Stats(); s.Duplicated != dups || s.Reordered != held {
		t.Errorf("Stats() = %+v, want %d duplicated, %d reordered", s, dups, held)
	}
	slices.SortStableFunc(arrivals, func(a, b arrival) int { return int(a.at - b.at) })
	overtaken := 0
	for i := 1; i < len(arrivals); i++ {
		if arrivals[i].sent < arrivals[i-1].sent {
			overtaken++
		}
	}
	if overtaken < int(held)/2 {
		t.Errorf("%d arrivals came after a later packet's, want about one per held-back packet (%d)", overtaken, held)
	}
}

func TestLinkDeterministic(t *testing.T) {
	c, _ := Preset("terrible")
	c.Dup, c.Reorder, c.BurstLoss, c.BurstLen = 0.05, 0.05, 0.2, 2
	a := sendAll(NewLink(c, 42), 10_000, ms)
	b := sendAll(NewLink(c, 42), 10_000, ms)
	if !slices.Equal(a, b) {
		t.Fatal("two links with the same seed and conditions decided differently")
	}
	if other := sendAll(NewLink(c, 43), 10_000, ms); slices.Equal(a, other) {
		t.Fatal("two links with different seeds decided the same")
	}
}

// TestLinkDrawsDoNotDependOnConditions checks the promise that every packet consumes the same
// draws: a packet that a lossy link delivers arrives when a lossless one delivers it.
func TestLinkDrawsDoNotDependOnConditions(t *testing.T) {
	base := Conditions{Latency: 50 * ms, Jitter: 20 * ms}
	lossy := base
	lossy.Loss, lossy.BurstLoss, lossy.BurstLen = 0.3, 0.5, 2
	a := sendAll(NewLink(base, 9), 5_000, ms)
	b := sendAll(NewLink(lossy, 9), 5_000, ms)
	delivered := 0
	for i := range a {
		if b[i].n == 0 {
			continue
		}
		delivered++
		if a[i] != b[i] {
			t.Fatalf("packet %d: %v without loss, %v with", i, a[i], b[i])
		}
	}
	if delivered == 0 || delivered == len(a) {
		t.Fatalf("%d of %d delivered: the test tests nothing", delivered, len(a))
	}
}

func TestLinkSaturates(t *testing.T) {
	l := NewLink(Conditions{Latency: MaxDelay, Jitter: MaxDelay, ReorderDelay: MaxDelay, Reorder: 1}, 1)
	at, n := l.Send(math.MaxInt64-time.Second, 1)
	if n != 1 || at[0] < math.MaxInt64-time.Second {
		t.Fatalf("Send near the end of time = %v, %d: overflowed", at, n)
	}
}

func TestSetConditionsShortensABurst(t *testing.T) {
	l := NewLink(Conditions{Loss: 1, BurstLoss: 1, BurstLen: 100}, 1)
	if _, n := l.Send(0, 1); n != 0 {
		t.Fatal("Loss 1 delivered")
	}
	l.SetConditions(Conditions{})
	if _, n := l.Send(0, 1); n != 1 {
		t.Fatal("a burst under way outlived conditions with no bursts")
	}
}

func TestNewLinkPanicsOnInvalidConditions(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "Loss") {
			t.Fatalf("recovered %v, want a panic naming Loss", r)
		}
	}()
	NewLink(Conditions{Loss: 2}, 1)
}

func TestLinkSendDoesNotAllocate(t *testing.T) {
	c, _ := Preset("mobile")
	c.Dup, c.Reorder = 0.1, 0.1
	l := NewLink(c, 1)
	now := time.Duration(0)
	if allocs := testing.AllocsPerRun(1000, func() {
		now += ms
		l.Send(now, 64)
	}); allocs != 0 {
		t.Fatalf("Send: %v allocations, want 0", allocs)
	}
}
