//go:build unix

package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRun: a short run of 50 matches prints its line, with every tick of the window measured
// (50 matches at 20 Hz for 500 ms: 500 ticks, give or take a tick at each end per match).
func TestRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := realMain([]string{"-matches", "50", "-seconds", "500ms", "-warmup", "0s"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	m := regexp.MustCompile(`^plainticker 50 matches at 20 Hz, work 0s: CPU [0-9.]+%, late p50 -?\d+ µs, p99 -?\d+ µs, (\d+) ticks, (\d+) dropped\n$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("printed %q", out.String())
	}
	ticks, _ := strconv.Atoi(m[1])
	dropped, _ := strconv.Atoi(m[2])
	if ticks+dropped < 400 || ticks+dropped > 600 {
		t.Errorf("%d ticks and %d dropped in 500 ms of 50 matches at 20 Hz, want about 500", ticks, dropped)
	}
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-matches", "0"}, "-matches 0"},
		{[]string{"-hz", "0"}, "-hz 0"},
		{[]string{"-seconds", "0s"}, "-seconds must be positive"},
		{[]string{"-seconds", "x"}, `invalid value "x"`},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		var out, errOut bytes.Buffer
		if code := realMain(c.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errOut.String(), c.want)
		}
	}
	var out, errOut bytes.Buffer
	if code := realMain([]string{"-h"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "-matches") {
		t.Errorf("-h: exit %d, stderr %q", code, errOut.String())
	}
}
