package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestDueAt(t *testing.T) {
	for _, tt := range []struct {
		n    uint64
		hz   int
		want time.Duration
	}{
		{1, 20, 50 * time.Millisecond},
		{1, 60, 16666667 * time.Nanosecond}, // rounded up, as the library's grid is
		{60, 60, time.Second},
		{61, 60, time.Second + 16666667*time.Nanosecond},
	} {
		if got := dueAt(time.Second, tt.n, tt.hz) - time.Second; got != tt.want {
			t.Errorf("dueAt(tick %d at %d Hz) = %v after the epoch, want %v", tt.n, tt.hz, got, tt.want)
		}
	}
}

func TestRecorder(t *testing.T) {
	r := newRecorder(4, 20, 0, time.Second, 3)
	us := time.Microsecond
	due := r.from + 10*time.Millisecond
	for i, late := range []time.Duration{10 * us, 20 * us, 30 * us, 40 * us, 5000 * us} {
		r.tick(i%3, due, due+late)
	}
	r.tick(0, due, due-us)                 // early
	r.tick(3, due, due+time.Hour)          // the skipped match
	r.tick(1, r.from-us, r.from+time.Hour) // before the window
	r.tick(1, r.to, r.to+time.Hour)        // after it
	r.tick(1, due, due+3*histogramMax)     // past the histogram
	r.tick(2, due, due+fineMax+1500*us)    // a coarse bucket
	r.drop(2, 4)
	r.drop(3, 100)
	s, err := r.summarise()
	if err != nil {
		t.Fatal(err)
	}
	if s.ticks != 8 || s.early != 1 || s.dropped != 4 || s.worst != 3*histogramMax {
		t.Errorf("summary %+v: want 8 ticks, 1 early, 4 dropped, worst %v", s, 3*histogramMax)
	}
	if s.p50 != 31*us {
		t.Errorf("p50 = %v, want 31µs (the upper edge of the 30 µs bucket)", s.p50)
	}
	if s.p99 != fineMax+2*time.Millisecond {
		t.Errorf("p99 = %v, want %v (the upper edge of the coarse bucket)", s.p99, fineMax+2*time.Millisecond)
	}
}

// A match that counts more ticks than the window holds makes the summary an error, not a
// figure that leaves some out.
func TestRecorderFull(t *testing.T) {
	r := newRecorder(2, 1, 0, time.Second, -1)
	due := r.from
	for range cap(r.matches[1].late) + 1 {
		r.tick(1, due, due)
	}
	if _, err := r.summarise(); err == nil {
		t.Error("no error for a match that recorded past its room")
	}
}

// Matches record into cache lines of their own: no two matches' records, or the buckets they
// append to, share one.
func TestRecordsApart(t *testing.T) {
	r := newRecorder(3, 20, 0, time.Second, -1)
	if sz := unsafe.Sizeof(r.matches[0]); sz%64 != 0 {
		t.Errorf("a match's record is %d bytes, not whole cache lines", sz)
	}
	for i := range r.matches {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(r.matches[i].late)))
		end := start + uintptr(cap(r.matches[i].late))*2
		if i > 0 && (start-uintptr(unsafe.Pointer(unsafe.SliceData(r.matches[0].late))))%64 != 0 || (end-start)%64 != 0 {
			t.Errorf("match %d's buckets span [%#x, %#x): not whole lines apart from match 0's", i, start, end)
		}
	}
}

func TestMedians(t *testing.T) {
	rows := []row{
		{Strategy: "pool", Matches: 10, CPUPercent: 3, LateP99us: 100},
		{Strategy: "ticker", Matches: 10, CPUPercent: 9},
		{Strategy: "pool", Matches: 10, CPUPercent: 1, LateP99us: 300},
		{Strategy: "pool", Matches: 10, CPUPercent: 2, LateP99us: 200},
	}
	got := medians(append(rows, row{Strategy: "pool", Matches: 10, Spin: true, CPUPercent: 100}))
	if len(got) != 3 || !got[2].Spin || got[2].CPUPercent != 100 || got[2].Runs != 1 || got[0].Strategy != "pool" || got[0].CPUPercent != 2 || got[0].LateP99us != 200 || got[0].Runs != 3 {
		t.Errorf("medians = %+v", got)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-matches", "10,20", "-seconds", "2", "-resolution", "0,200us", "-strategies", "pool,ticker"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.matches) != 2 || o.seconds != 2*time.Second || o.resolutions[0] != time.Millisecond || len(o.strategies) != 2 {
		t.Errorf("parsed %+v", o)
	}
	if !slices.Equal(o.works, []time.Duration{0, 200 * time.Microsecond}) {
		t.Errorf("-work by default: %v, want [0 200µs]", o.works)
	}
	if o, err := parseFlags([]string{"-work", "0,80us"}, io.Discard); err != nil || !slices.Equal(o.works, []time.Duration{0, 80 * time.Microsecond}) {
		t.Errorf("-work 0,80us: %v, %v", o.works, err)
	}
	if !slices.Equal(o.spins, []bool{false}) {
		t.Errorf("-spin by default: %v, want [false]", o.spins)
	}
	for _, tt := range []struct {
		args []string
		want []bool
	}{
		{[]string{"-spin"}, []bool{true}},
		{[]string{"-spin=false"}, []bool{false}},
		{[]string{"-spin=false,true"}, []bool{false, true}},
		{[]string{"-spin", "-matches", "5"}, []bool{true}},
	} {
		if o, err := parseFlags(tt.args, io.Discard); err != nil || !slices.Equal(o.spins, tt.want) {
			t.Errorf("%q: spins %v, %v; want %v", tt.args, o.spins, err, tt.want)
		}
	}
	for _, tt := range []struct {
		args            []string
		seconds, warmup time.Duration
	}{
		{[]string{"-seconds", "2", "-warmup", "0.1"}, 2 * time.Second, 100 * time.Millisecond},
		{[]string{"-seconds=1.5", "--warmup=0"}, 1500 * time.Millisecond, 0},
		{[]string{"-warmup", "250ms", "-seconds", "3s"}, 3 * time.Second, 250 * time.Millisecond},
	} {
		o, err := parseFlags(tt.args, io.Discard)
		if err != nil || o.seconds != tt.seconds || o.warmup != tt.warmup {
			t.Errorf("%q: seconds %v, warmup %v, %v; want %v, %v", tt.args, o.seconds, o.warmup, err, tt.seconds, tt.warmup)
		}
	}
	for _, bad := range [][]string{{"-warmup", "soon"}, {"-matches", "0"}, {"-strategies", "nope"}, {"-resolution", "fast"}, {"-hz", "0"}, {"extra"}, {"-spin=maybe"}, {"-work", "-1ms"}, {"-work", "lots"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestChildSpin runs a pool briefly with its waiter spinning, as serverbench runs each strategy
// in a process of its own: the row says so, and no tick began before it was due.
func TestChildSpin(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"-child", "pool", "-matches", "10", "-hz", "50", "-seconds", "0.3", "-warmup", "0", "-work", "0", "-resolution", "200us", "-spin"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var r row
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if !r.Spin || r.ResolutionUs != 200 || r.Early != 0 || r.Ticks == 0 {
		t.Errorf("row %+v: want spin, 200 µs, ticks and none early", r)
	}
}

// A bad flag exits 2 with its error printed once, as does a setting out of range; -h exits 0
// with the usage, which explains the columns. -h used to exit 2, a bad flag 1 with its error
// printed twice.
func TestExitStatus(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		status int
		once   string
	}{
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-hz", "0"}, 2, "-hz: 0 is not between"},
		{[]string{"-h"}, 0, "early counts ticks begun before they were due"},
	} {
		var stderr bytes.Buffer
		status := exitStatus(run(tt.args, io.Discard, &stderr), &stderr)
		if status != tt.status || strings.Count(stderr.String(), tt.once) != 1 {
			t.Errorf("serverbench %q: status %d, printed:\n%s\nwant status %d and %q once", tt.args, status, stderr.String(), tt.status, tt.once)
		}
	}
}

// The table says what its columns mean, load and early among them.
func TestTableExplainsColumns(t *testing.T) {
	var out bytes.Buffer
	printTable(&out, []row{{Strategy: "pool", Matches: 10, Load1: 0.5}}, options{childOptions: childOptions{hz: 20}})
	for _, want := range []string{" early ", " load", "early counts ticks begun before they were due", "load is the\nmachine's 1-minute load average"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the table:\n%s", want, out.String())
		}
	}
}
