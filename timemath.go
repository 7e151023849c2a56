package gameloop

import (
	"math"
	"math/bits"
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

// timeScale is a time scale held exactly: the float64 a user gave, as mant * 2^exp with mant
// odd (or zero). Scaling a duration by it is exact integer arithmetic on 128-bit products, so
// that converting game time to real time and back never loses a nanosecond in the direction
// that matters: at unscale(d) real time, scale gives at least d of game time, at any size.
type timeScale struct {
	f    float64 // the scale as given
	mant uint64
	exp  int
}

// exactScale returns f as a timeScale. f must be finite and not negative (see checkScale).
func exactScale(f float64) timeScale {
	if f == 0 {
		return timeScale{}
	}
	frac, exp := math.Frexp(f) // f = frac * 2^exp, frac in [0.5, 1)
	mant := uint64(frac * (1 << 53))
	exp -= 53
	tz := bits.TrailingZeros64(mant)
	return timeScale{f: f, mant: mant >> tz, exp: exp + tz}
}

// scale returns floor(d * s), saturating at never; d <= 0 gives 0. Scale 1 is the identity.
func (s timeScale) scale(d time.Duration) time.Duration {
	if d <= 0 || s.mant == 0 {
		return 0
	}
	if s.mant == 1 && s.exp == 0 {
		return d
	}
	hi, lo := bits.Mul64(uint64(d), s.mant)
	if s.exp >= 0 {
		// Shift left: saturate when any bit would pass bit 62.
		if hi != 0 || s.exp >= 63 || lo > uint64(never)>>s.exp {
			return never
		}
		return time.Duration(lo << s.exp)
	}
	k := -s.exp
	switch {
	case k >= 128:
		return 0
	case k >= 64:
		lo, hi = hi>>(k-64), 0
	default:
		lo, hi = lo>>k|hi<<(64-k), hi>>k
	}
	if hi != 0 || lo > uint64(never) {
		return never
	}
	return time.Duration(lo)
}

// unscale returns the least real time r with s.scale(r) >= d: ceil(d / s). It is never (a
// time that does not come) when game time does not pass or r is beyond int64; d <= 0 gives 0.
func (s timeScale) unscale(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return 0
	case s.mant == 0:
		return never
	case s.mant == 1 && s.exp == 0:
		return d
	}
	if s.exp >= 0 {
		// s = mant << exp fits in 64 bits (s <= maxTimeScale).
		div := s.mant << s.exp
		q := uint64(d) / div
		if uint64(d)%div != 0 {
			q++
		}
		return time.Duration(q)
	}
	// ceil(d * 2^k / mant), with d * 2^k as a 128-bit number.
	k := -s.exp
	if bits.Len64(uint64(d))+k > 127 {
		return never // at least 2^(126-53): far beyond int64
	}
	var hi, lo uint64
	if k >= 64 {
		hi, lo = uint64(d)<<(k-64), 0
	} else {
		hi, lo = uint64(d)>>(64-k), uint64(d)<<k
	}
	if hi >= s.mant {
		return never // the quotient needs more than 64 bits
	}
	q, rem := bits.Div64(hi, lo, s.mant)
	if rem != 0 {
		q++
	}
	if q > uint64(never) || q == 0 && rem != 0 {
		return never
	}
	return time.Duration(q)
}

// addSat adds without overflowing past never.
func addSat(a, b time.Duration) time.Duration {
	if b > 0 && a > never-b {
		return never
	}
	return a + b
}

// subSat subtracts without wrapping below -never.
func subSat(a, b time.Duration) time.Duration {
	if b > 0 && a < -never+b {
		return -never
	}
	return a - b
}
