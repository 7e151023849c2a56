package gameloop

import (
	"math"
	"time"
)

// never is a deadline that does not come.
const never = time.Duration(math.MaxInt64)

// Integer time arithmetic. Every schedule in the package is a grid of events at exact rational
// times k/rate seconds after an epoch. Multiplying a duration in nanoseconds by a rate overflows
// int64 after a few months at high rates, so, as golang.org/x/time/rate does, seconds and
// nanoseconds are handled apart: each product below stays under rate * 1e9 <= 1e15.

// countIn returns how many events of a grid at rate per second fall in (0, d]:
// floor(d * rate / 1s). d < 0 counts none.
func countIn(d time.Duration, rate int64) uint64 {
	if d <= 0 {
		return 0
	}
	sec, ns := int64(d/time.Second), int64(d%time.Second)
	return uint64(sec)*uint64(rate) + uint64(ns*rate/int64(time.Second))
}

// offsetOf returns the time of event k of a grid at rate per second, counted from the epoch
// (event 0): the smallest d with countIn(d, rate) >= k, that is ceil(k * 1s / rate).
func offsetOf(k uint64, rate int64) time.Duration {
	r := uint64(rate)
	whole, rest := k/r, k%r
	return time.Duration(whole)*time.Second + time.Duration((rest*uint64(time.Second)+r-1)/r)
}

// scaleDuration returns d*scale rounded to the nearest nanosecond; scale 1 is exact.
func scaleDuration(d time.Duration, scale float64) time.Duration {
	if scale == 1 {
		return d
	}
	return time.Duration(math.Round(float64(d) * scale))
}

// unscaleDuration returns the real time in which game time d passes at scale, rounded up so
// that the game time has fully passed by then; never if time does not pass.
func unscaleDuration(d time.Duration, scale float64) time.Duration {
	switch {
	case scale == 1:
		return d
	case scale == 0:
		return never
	}
	r := math.Ceil(float64(d) / scale)
	if r >= float64(never) {
		return never
	}
	return time.Duration(r)
}

// addSat adds without overflowing past never.
func addSat(a, b time.Duration) time.Duration {
	if b > 0 && a > never-b {
		return never
	}
	return a + b
}
