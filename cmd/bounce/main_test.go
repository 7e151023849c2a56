package main

import (
	"bytes"
	"regexp"
	"strings"
	"syscall"
	"testing"
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

// Bad flags are refused before anything starts, with a status of their own: 2 means a panic in
// the game.
func TestBadFlagsExitWithUsageStatus(t *testing.T) {
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
