//go:build unix

package doccheck_test

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ownGroup makes cmd start a process group of its own, killed whole when cmd's context ends,
// and returns a function that kills what is left of the group.
func ownGroup(cmd *exec.Cmd) (kill func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH when nothing is left
		}
	}
}

// TestRunEndsTheGroup: a command that leaves a program running in the background returns
// when it exits, and the program is killed with it.
func TestRunEndsTheGroup(t *testing.T) {
	start := time.Now()
	out, err := run(t, t.TempDir(), exec.Command("bash", "-c", "sleep 60 & echo $!"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("run returned after %v: it waited for the program in the background", d)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("the command printed %q, not a process id", out)
	}
	// Killed at once; gone once its new parent has reaped it.
	for deadline := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the program in the background (process %d) still runs", pid)
		}
	}
}
