package main

import (
	"github.com/gameloop-go/gameloop"
	"math"
	"slices"
	"time"
)

// recorder times the frames of one run: where each started against where it was aimed.
type recorder struct {
	hz     int
	period time.Duration
	frames int // how many to record
	load   time.Duration
	origin time.Time

	starts, aims []time.Duration
	pacer        gameloop.PacerStats // for gameloop, what its pacer did
}

func newRecorder(hz int, seconds float64, load time.Duration) *recorder {
	n := int(math.Round(seconds * float64(hz)))
	return &recorder{
		hz:     hz,
		period: time.Second / time.Duration(hz),
		frames: n,
		load:   load,
		origin: time.Now(),
		starts: make([]time.Duration, 0, n),
		aims:   make([]time.Duration, 0, n),
	}
}

// now reads the monotonic clock.
func (r *recorder) now() time.Duration { return time.Since(r.origin) }

// slot returns the offset of slot k of the ideal schedule, exactly k/hz seconds.
func (r *recorder) slot(k uint64) time.Duration {
	return time.Duration(k) * time.Second / time.Duration(r.hz)
}

// slotAtOrBefore returns the offset of the last slot at or before offset d.
func (r *recorder) slotAtOrBefore(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return r.slot(uint64(d) * uint64(r.hz) / uint64(time.Second))
}

// frame records a frame that started at start and was aimed at aim; it reports whether more
// frames are wanted.
func (r *recorder) frame(start, aim time.Duration) bool {
	if len(r.starts) >= r.frames {
		return false
	}
	r.starts = append(r.starts, start)
	r.aims = append(r.aims, aim)
	return true
}

// work spins for the frame's simulated work.
func (r *recorder) work() {
	if r.load <= 0 {
		return
	}
	end := r.now() + r.load
	for r.now() < end {
	}
}

// result is one strategy at one rate, as the table and the JSON show it.
type result struct {
	Strategy      string  `json:"strategy"`
	Hz            int     `json:"hz"`
	FPS           float64 `json:"fps"`
	P50us         float64 `json:"p50_us"`
	P99us         float64 `json:"p99_us"`
	MaxUs         float64 `json:"max_us"`
	IntervalP99us float64 `json:"interval_p99_us"`
	CPUPercent    float64 `json:"cpu_percent"`

	deviations []float64 // µs, sorted, for the plot
	pacer      gameloop.PacerStats
}

// summarise computes the figures of a run. The first frame is left out of the deviations: it
// starts the schedule, and is on it by definition.
func (r *recorder) summarise(name string, wall, cpu time.Duration) result {
	res := result{Strategy: name, Hz: r.hz, CPUPercent: math.NaN()}
	n := len(r.starts)
	if n < 2 {
		return res
	}
	res.FPS = float64(n-1) / (r.starts[n-1] - r.starts[0]).Seconds()
	dev := make([]float64, 0, n-1)
	interval := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		dev = append(dev, micros(r.starts[i]-r.aims[i]))
		interval = append(interval, math.Abs(micros(r.starts[i]-r.starts[i-1]-r.period)))
	}
	slices.Sort(dev)
	slices.Sort(interval)
	res.P50us, res.P99us, res.MaxUs = quantile(dev, 0.50), quantile(dev, 0.99), dev[len(dev)-1]
	res.IntervalP99us = quantile(interval, 0.99)
	if cpu >= 0 && wall > 0 {
		res.CPUPercent = 100 * cpu.Seconds() / wall.Seconds()
	}
	res.deviations = dev
	res.pacer = r.pacer
	return res
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// quantile returns the nearest-rank q-quantile of sorted values.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
