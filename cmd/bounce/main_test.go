package main

import (
	"bytes"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
)

// -headless -seconds N runs exactly N x tps ticks, so its checksum is the same on every run: a
// timer used to race the last tick, and two runs printed either of two checksums.
func TestHeadlessRunsExactTicks(t *testing.T) {
	var first string
	for run := range 3 {
		var stdout, stderr bytes.Buffer
		if code := realMain([]string{"-headless", "-seconds", "0.3", "-tps", "50", "-fps", "100"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit status %d: %s", code, stderr.String())
		}
		out := stdout.String()
		if !regexp.MustCompile(`(?m)^ticks +15$`).MatchString(out) {
			t.Fatalf("run %d: want exactly 15 ticks (0.3 s at 50 Hz), printed:\n%s", run, out)
		}
		sum := regexp.MustCompile(`(?m)^checksum +([0-9a-f]{16})$`).FindStringSubmatch(out)
		if sum == nil {
			t.Fatalf("no checksum printed:\n%s", out)
		}
		if run == 0 {
			first = sum[1]
		} else if sum[1] != first {
			t.Errorf("run %d: checksum %s, run 0: %s", run, sum[1], first)
		}
	}
}

// Bad flags are refused before anything starts, with the status the flag package's
// ExitOnError gives, 2 (a panic in the game has 3), the error printed once; -h prints the usage
// and exits 0. A bad flag used to exit 64, its error printed twice.
func TestBadFlagsExitWithUsageStatus(t *testing.T) {
	if exitUsage != 2 || exitPanic == exitUsage {
		t.Errorf("a bad flag exits %d, a panic %d: want 2 and another", exitUsage, exitPanic)
	}
	for _, tt := range []struct {
		args []string
		code int
		once string
	}{
		{[]string{"-nosuchflag"}, 2, "flag provided but not defined: -nosuchflag"},
		{[]string{"-glyphs", "ascii"}, 2, `-glyphs "ascii": want braille or half`},
		{[]string{"-h"}, 0, "-glyphs string"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(tt.args, &stdout, &stderr); code != tt.code || strings.Count(stderr.String(), tt.once) != 1 {
			t.Errorf("bounce %v: exit status %d, stderr %q; want %d and %q once", tt.args, code, stderr.String(), tt.code, tt.once)
		}
	}
	for _, args := range [][]string{
		{"-seconds", "NaN", "-headless"},
		{"-seconds", "+Inf", "-headless"},
		{"-seconds", "-1", "-headless"},
		{"-nosuchflag"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("bounce %v: exit status %d, want %d (stderr %q)", args, code, exitUsage, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("bounce %v printed %q: it ran", args, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"-headless", "-seconds", "0.01", "-tps", "10"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "less than one tick") {
		t.Errorf("a run shorter than a tick: exit status %d, stderr %q", code, stderr.String())
	}
}

func TestSignalMessage(t *testing.T) {
	if got, want := (signalError{syscall.SIGTERM}).Error(), "terminated by SIGTERM"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// The tps printed is the ticks over the run's real time: 50 ticks in 5 s print 10.0, whatever
// the loop's TPS over its last window of a second says (10.8 or 9.8, by where the ticks fell).
// It used to print the window's.
func TestPrintStatsTPS(t *testing.T) {
	g, _ := testGame(t, "braille")
	for _, st := range []gameloop.Stats{
		{Ticks: 50, RealTime: 5*time.Second + 3*time.Millisecond, TPS: 10.8},
		{Ticks: 50, RealTime: 5 * time.Second, TPS: 9.8},
	} {
		var out bytes.Buffer
		if err := printStats(&out, st, g); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^tps +10\.0$`).MatchString(out.String()) {
			t.Errorf("%d ticks in %v: printed\n%s\nwant tps 10.0", st.Ticks, st.RealTime, out.String())
		}
	}
}
