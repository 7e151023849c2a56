package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop/internal/cli"
)

// TestMain runs a row when the test binary is started as netbench's child (the parent starts
// its own executable with -child).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-child" {
		os.Exit(cli.Report("netbench", run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
	}
	os.Exit(m.Run())
}

// -h prints the usage and succeeds; a bad flag or row is a usage error (2).
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"-h"}, 0, "-rows"},
		{[]string{"-nosuchflag"}, 2, "flag provided but not defined"},
		{[]string{"-seconds", "0"}, 2, "-seconds"},
		{[]string{"-runs", "0"}, 2, "-runs"},
		{[]string{"-hz", "0"}, 2, "-hz"},
		{[]string{"-rows", "sleep,nope"}, 2, `no row "nope"`},
		{[]string{"extra"}, 2, "unexpected argument"},
	} {
		var stdout, stderr bytes.Buffer
		got := cli.Report("netbench", run(tc.args, strings.NewReader(""), &stdout, &stderr), &stderr)
		if got != tc.want || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("netbench %v: exit status %d, stderr %q; want %d and %q", tc.args, got, stderr.String(), tc.want, tc.says)
		}
	}
}

// A short run plays each kind of row in a process of its own and prints its line of the
// table; no row allocates a tick.
func TestShortRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	rows := "sleep,lowpower,lowpower/UDPConn,precise/net.UDPConn,lowpower/UDPConn/spectators"
	if err := run([]string{"-seconds", "0.3", "-warmup", "0", "-runs", "1", "-rows", rows}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Logf("\n%s", stdout.String())
	for _, name := range strings.Split(rows, ",") {
		var line string
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.HasPrefix(l, "| "+name+" |") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("no row %s in\n%s", name, stdout.String())
			continue
		}
		f := strings.Split(strings.Trim(line, "| "), " | ")
		if len(f) != 8 {
			t.Errorf("row %q: %d columns, want 8", line, len(f))
			continue
		}
		// Less than one a tick: the process's allocations over the window, the runtime's
		// included, which on a loaded machine may make a few (the sessions' own steady
		// state is held to exactly none by netplay's TestUDPNoAllocations); a game that
		// allocated each tick would show one or more.
		if allocs, err := strconv.ParseFloat(f[4], 64); err != nil || allocs >= 1 {
			t.Errorf("row %s: %s allocations a tick, want less than one", name, f[4])
		}
	}
}
