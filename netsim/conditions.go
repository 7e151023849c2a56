package netsim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// MaxDelay is the largest Latency, Jitter or ReorderDelay that Validate accepts. A minute is far
// beyond any network worth simulating, and keeps every sum of delays far from overflowing.
const MaxDelay = time.Minute

// MaxBurstLen is the largest BurstLen that Validate accepts.
const MaxBurstLen = 1000

// DefaultReorderDelay is the extra delay of a held-back packet when Conditions.ReorderDelay is 0.
const DefaultReorderDelay = 50 * time.Millisecond

// Conditions describe one direction of a link: what happens to each packet sent over it.
//
// The model, for each packet in turn:
//
//  1. Loss. While a burst is under way, the packet is dropped and the burst shortens by one.
//     Otherwise it is dropped with probability Loss, and such a loss starts a burst with
//     probability BurstLoss: the BurstLen packets after it are dropped too. The long-run share
//     of packets dropped is therefore Loss*(1+BurstLoss*BurstLen) / (1+Loss*BurstLoss*BurstLen).
//  2. Delay. A packet that is not dropped is delivered Latency ± Jitter after it was sent: the
//     offset is drawn uniformly from [-Jitter, +Jitter] for each packet on its own, and a delay
//     below 0 counts as 0. Packets sent closer together than the jitter's spread therefore
//     overtake one another, as on a real network.
//  3. Reorder. With probability Reorder the packet is held back by ReorderDelay more, so that
//     the packets sent after it within that time overtake it.
//  4. Duplication. With probability Dup the packet is delivered twice; the copy's delay is
//     drawn on its own (step 2, not step 3).
//
// Every packet consumes the same number of random draws whatever the conditions, so that two
// links with the same seed and different settings still see the same randomness packet by
// packet. The zero value is a perfect link: no delay, no loss.
type Conditions struct {
	Latency, Jitter time.Duration // one-way delay: Latency ± Jitter (uniform), never below 0
	Loss            float64       // probability that a packet outside a burst is dropped, 0..1
	Dup             float64       // probability that a packet is delivered twice, 0..1
	Reorder         float64       // probability that a packet is held back by ReorderDelay, 0..1
	BurstLoss       float64       // probability that a loss starts a burst, 0..1 ...
	BurstLen        int           // ... that drops this many following packets too, 0..MaxBurstLen
	ReorderDelay    time.Duration // extra delay of a held-back packet; 0 means DefaultReorderDelay
}

// Validate reports whether c can be simulated: delays between 0 and MaxDelay, probabilities
// between 0 and 1, BurstLen between 0 and MaxBurstLen, and a BurstLen wherever BurstLoss is
// set. Its error names the field and the value.
func (c Conditions) Validate() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Latency", c.Latency}, {"Jitter", c.Jitter}, {"ReorderDelay", c.ReorderDelay}} {
		if d.v < 0 || d.v > MaxDelay {
			errs = append(errs, fmt.Errorf("netsim: %s %v is not between 0 and %v", d.name, d.v, MaxDelay))
		}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"Loss", c.Loss}, {"Dup", c.Dup}, {"Reorder", c.Reorder}, {"BurstLoss", c.BurstLoss}} {
		if !(p.v >= 0 && p.v <= 1) { // also catches NaN
			errs = append(errs, fmt.Errorf("netsim: %s %v is not a probability between 0 and 1", p.name, p.v))
		}
	}
	switch {
	case c.BurstLen < 0 || c.BurstLen > MaxBurstLen:
		errs = append(errs, fmt.Errorf("netsim: BurstLen %d is not between 0 and %d", c.BurstLen, MaxBurstLen))
	case c.BurstLoss > 0 && c.BurstLen == 0:
		errs = append(errs, fmt.Errorf("netsim: BurstLoss %v is set but BurstLen is 0, so a burst would drop nothing", c.BurstLoss))
	}
	return errors.Join(errs...)
}

// LossRate returns the long-run share of packets that c drops, bursts included (see Conditions).
func (c Conditions) LossRate() float64 {
	b := c.BurstLoss * float64(c.BurstLen)
	return c.Loss * (1 + b) / (1 + c.Loss*b)
}

// String describes c in the terms of cmd/netsim's flags, such as
// "latency 100ms ± 50ms, loss 5%".
func (c Conditions) String() string {
	s := fmt.Sprintf("latency %v ± %v, loss %s", c.Latency, c.Jitter, percent(c.Loss))
	if c.BurstLoss > 0 {
		s += fmt.Sprintf(" (%s of losses start a burst of %d more)", percent(c.BurstLoss), c.BurstLen)
	}
	if c.Dup > 0 {
		s += ", dup " + percent(c.Dup)
	}
	if c.Reorder > 0 {
		s += fmt.Sprintf(", reorder %s by %v", percent(c.Reorder), c.reorderDelay())
	}
	return s
}

func percent(p float64) string {
	return fmt.Sprintf("%.4g%%", math.Round(p*1e6)/1e4)
}

func (c Conditions) reorderDelay() time.Duration {
	if c.ReorderDelay == 0 {
		return DefaultReorderDelay
	}
	return c.ReorderDelay
}

// presets are the named conditions of Preset, in the order PresetNames lists them.
var presets = [...]struct {
	name string
	c    Conditions
}{
	{"none", Conditions{}},
	{"poor", Conditions{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond, Loss: 0.05}},
	{"terrible", Conditions{Latency: 250 * time.Millisecond, Jitter: 100 * time.Millisecond, Loss: 0.15}},
	{"mobile", Conditions{Latency: 60 * time.Millisecond, Jitter: 40 * time.Millisecond, Loss: 0.12, BurstLoss: 0.1, BurstLen: 3}},
	{"intercontinental", Conditions{Latency: 120 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02}},
}

// Preset returns the named conditions, for one direction of a link:
//
//	none              a perfect link
//	poor              100 ms ± 50 ms, 5% loss
//	terrible          250 ms ± 100 ms, 15% loss
//	mobile            60 ms ± 40 ms, 12% loss, a tenth of losses followed by 3 more (15% in all)
//	intercontinental  120 ms ± 15 ms, 2% loss
//
// Its error lists the names it knows.
func Preset(name string) (Conditions, error) {
	for _, p := range presets {
		if p.name == name {
			return p.c, nil
		}
	}
	return Conditions{}, fmt.Errorf("netsim: no preset %q (known: %v)", name, PresetNames())
}

// PresetNames returns the names Preset knows, in the order of Preset's table: none, poor,
// terrible, mobile, intercontinental.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return names
}
