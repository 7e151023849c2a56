package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gameloop-go/gameloop/internal/cli"
)

// TestShortRun measures a row of 3 matches of 2 players for a moment: the relay process runs
// every match with every player and refuses no packet of theirs (relaybench fails the row
// otherwise: their packets, encoded by hand, are the protocol's), and receives and sends.
func TestShortRun(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "relaybench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(context.Background(), bin, "-rows", "3x2", "-seconds", "0.5", "-warmup", "0.2")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("relaybench: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	t.Logf("\n%s", stdout.String())
	row := regexp.MustCompile(`(?m)^3x2\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s`).FindStringSubmatch(stdout.String())
	if row == nil || row[3] == "0" || row[4] == "0" {
		t.Fatalf("no row 3x2 with packets in and out:\n%s", stdout.String())
	}
}

// TestBadFlags: rows and settings out of range are refused with exit status 2.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-rows", "0x2"}, {"-rows", "10x9"}, {"-rows", "ten"}, {"-hz", "0"}, {"-seconds", "0"}, {"-runs", "0"}, {"extra"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("relaybench %q: exit status %d (%v), want 2", args, code, err)
		}
	}
}

func exitCode(err error, stderr *bytes.Buffer) int { return cli.Report("relaybench", err, stderr) }
