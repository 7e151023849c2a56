package main

import (
	"io"
	"math"
	"testing"
	"time"
)

func TestSlotAtOrBefore(t *testing.T) {
	r := newRecorder(60, 1, 0)
	tests := []struct {
		d, want time.Duration
	}{
		{-time.Millisecond, 0},
		{0, 0},
		{16666666, 0},
		{16666667, 16666666}, // slot 1 is at 1s/60 truncated
		{time.Second, time.Second},
		{time.Second + 1, time.Second},
	}
	for _, tt := range tests {
		if got := r.slotAtOrBefore(tt.d); got != tt.want {
			t.Errorf("slotAtOrBefore(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}

func TestSummarise(t *testing.T) {
	r := newRecorder(100, 0.05, 0) // 5 frames, 10 ms apart
	period := 10 * time.Millisecond
	late := []time.Duration{0, 5 * time.Microsecond, 0, 20 * time.Microsecond, 1 * time.Microsecond}
	for i, l := range late {
		aim := time.Duration(i) * period
		if !r.frame(aim+l, aim) {
			t.Fatalf("frame %d refused", i)
		}
	}
	if r.frame(time.Second, time.Second) {
		t.Fatal("a sixth frame was recorded")
	}
	res := r.summarise("x", time.Second, 20*time.Millisecond)
	// The first frame is left out: the deviations are 5, 0, 20 and 1 µs.
	if res.P50us != 1 || res.P99us != 20 || res.MaxUs != 20 {
		t.Errorf("p50 %v, p99 %v, max %v; want 1, 20, 20", res.P50us, res.P99us, res.MaxUs)
	}
	// Intervals err by 5, 5, 20 and 19 µs.
	if res.IntervalP99us != 20 {
		t.Errorf("interval p99 %v, want 20", res.IntervalP99us)
	}
	if want := 4 / (40*time.Millisecond + time.Microsecond).Seconds(); math.Abs(res.FPS-want) > 1e-9 {
		t.Errorf("fps %v, want %v", res.FPS, want)
	}
	if res.CPUPercent != 2 {
		t.Errorf("cpu %v%%, want 2%%", res.CPUPercent)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-hz", "60, 240", "-strategies", "gameloop,busy-wait", "-work", "1ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.rates) != 2 || o.rates[1] != 240 || len(o.strategies) != 2 || o.work != time.Millisecond {
		t.Errorf("options %+v", o)
	}
	if o, _ := parseFlags(nil, io.Discard); len(o.strategies) != 6 {
		t.Errorf("%d strategies by default, want the 6 strategies measured in docs/pacing.md", len(o.strategies))
	}
	for _, bad := range [][]string{{"-hz", "0"}, {"-strategies", "nope"}, {"-seconds", "-1"}, {"extra"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
