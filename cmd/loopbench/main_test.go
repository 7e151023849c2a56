package main

import (
	"bytes"
	"strings"
	"testing"
)

// -h prints the usage and succeeds; a bad flag is a usage error (2), not a failed benchmark.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"-h"}, 0, "-hz"},
		{[]string{"-nosuchflag"}, 2, "flag provided but not defined"},
		{[]string{"-seconds", "NaN"}, 2, "-seconds"},
	} {
		var stdout, stderr bytes.Buffer
		if got := realMain(tc.args, &stdout, &stderr); got != tc.want || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("loopbench %v: exit status %d, stderr %q; want %d and %q", tc.args, got, stderr.String(), tc.want, tc.says)
		}
	}
}
