package main

// The end-to-end test: bounce in a real terminal, a tmux pane, read back with capture-pane.
// It polls the screen until what it waits for shows up; the timeouts only bound how long a
// failing test takes, and no assertion depends on how fast the machine is.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitTimeout bounds every wait for the screen to show something.
const waitTimeout = 30 * time.Second

func TestTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
			t.Fatal("tmux is not installed (scripts/packages/term.txt lists it), and GAMELOOP_REQUIRE_ALL=1")
		}
		t.Skip("tmux is not installed: skipping the terminal test")
	}
	bin := buildBounce(t)

	t.Run("play", func(t *testing.T) {
		t.Parallel()
		p := startPane(t, tmux, bin)
		p.waitStarted()

		p.sendKeys("-l", "i")
		p.waitFor("the mode to change to extrapolate", func(s screen) bool {
			return strings.HasPrefix(s.status(), "extrapolate ")
		})

		first := p.capture()
		p.waitFor("the balls to move", func(s screen) bool { return s.box() != first.box() })

		p.sendKeys("-l", "p")
		paused := p.waitFor("the status line to say PAUSED", func(s screen) bool {
			return strings.HasPrefix(s.status(), "extrapolate PAUSED ")
		})
		// The frame that shows PAUSED may have been drawn as the pause began: start from a later one.
		before := p.waitFor("a frame drawn after the pause", func(s screen) bool { return s.frame() > paused.frame() })
		after := p.waitFor("five more frames", func(s screen) bool { return s.frame() >= before.frame()+5 })
		if before.box() != after.box() {
			t.Errorf("the balls moved while paused, between frames %d and %d:\n%s\n%s", before.frame(), after.frame(), before, after)
		}
		p.sendKeys("-l", "p")
		p.waitFor("the balls to move again", func(s screen) bool {
			return !strings.Contains(s.status(), "PAUSED") && s.box() != after.box()
		})

		p.tmux("resize-window", "-t", p.session, "-x", "100", "-y", "30")
		p.waitFor("the drawing to follow the resize to 100x30", func(s screen) bool {
			return len(s) >= 30 && strings.HasSuffix(s[0], "┐") && len([]rune(s[0])) == 100 &&
				s[28] == "└"+strings.Repeat("─", 98)+"┘" && strings.Contains(s.status(), " 100x30 ")
		})
		p.sendKeys("-l", "+")
		p.waitFor("the time scale to double", func(s screen) bool { return strings.Contains(s.status(), " x2 ") })
		p.sendKeys("-l", "]")
		p.waitFor("the tick rate to rise to 15", func(s screen) bool { return strings.Contains(s.status(), " 15Hz ") })

		p.sendKeys("-l", "q")
		p.waitExit(0)
		p.checkRestored()
	})

	t.Run("record-and-replay", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "session.rec")
		p := startPane(t, tmux, bin, "-record", path)
		p.waitStarted()
		p.sendKeys("Right")
		p.sendKeys("Space")
		p.waitFor("a sixth ball", func(s screen) bool { return strings.HasSuffix(s.status(), " 6 balls") })
		p.sendKeys("-l", "]")
		p.waitFor("the tick rate to rise to 15", func(s screen) bool { return strings.Contains(s.status(), " 15Hz ") })
		p.sendKeys("-l", "p")
		p.waitFor("the status line to say PAUSED", func(s screen) bool { return strings.Contains(s.status(), " PAUSED ") })
		p.sendKeys("Space") // while paused: the ball is added before the next tick
		p.waitFor("a seventh ball", func(s screen) bool { return strings.HasSuffix(s.status(), " 7 balls") })
		p.sendKeys("-l", "p")
		p.sendKeys("-l", "+")
		p.waitFor("the time scale to double, unpaused", func(s screen) bool {
			return strings.Contains(s.status(), " x2 ") && !strings.Contains(s.status(), "PAUSED")
		})
		p.sendKeys("Up")
		p.sendKeys("Left")
		before := p.capture().frame()
		p.waitFor("30 more frames", func(s screen) bool { return s.frame() >= before+30 })
		p.sendKeys("-l", "q")
		p.waitExit(0)
		p.checkRestored()

		rec := decodeFile(t, path)
		if len(rec.Inputs) < 9 || len(rec.RateChanges) != 1 || rec.RateChanges[0].Rate != 15 || rec.Ticks < 2 ||
			string(rec.Meta) != "bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille tps=10" {
			t.Fatalf("recorded %d ticks, %d inputs, rate changes %v, meta %q: want the keys sent, a change to 15 Hz, the start",
				rec.Ticks, len(rec.Inputs), rec.RateChanges, rec.Meta)
		}
		out, code := runBin(t, bin, "-replay", path)
		t.Logf("recorded %d ticks, %d inputs, in %d bytes; bounce -replay: %s", rec.Ticks, len(rec.Inputs), fileSize(t, path), out)
		if want := fmt.Sprintf("replay: %d ticks, matched (", rec.Ticks); code != 0 || !strings.HasPrefix(out, want) {
			t.Fatalf("bounce -replay: exit status %d, output %q; want 0 and %q", code, out, want)
		}

		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		flipped := bytes.Clone(data)
		flipped[len(flipped)/2] ^= 0x04
		tick := rec.Ticks/2 + 1
		for _, tt := range []struct {
			name string
			data []byte
			want string // a regexp
		}{
			{"truncated", data[:len(data)-3], `cut short at byte \d+`},
			{"corrupted", flipped, `corrupt recording at byte \d+`},
			{"tampered", tamperChecksum(t, data, tick), fmt.Sprintf(`MISMATCH at tick %d of %d: expected checksum [0-9a-f]{16}, got [0-9a-f]{16}`, tick, rec.Ticks)},
		} {
			damaged := filepath.Join(dir, tt.name+".rec")
			if err := os.WriteFile(damaged, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := runBin(t, bin, "-replay", damaged)
			if code != 1 || !regexp.MustCompile(tt.want).MatchString(out) {
				t.Errorf("%s recording: exit status %d, output %q; want 1 and %q", tt.name, code, out, tt.want)
			}
		}
	})

	t.Run("half-blocks-and-escape", func(t *testing.T) {
		t.Parallel()
		p := startPane(t, tmux, bin, "-glyphs", "half")
		p.waitStarted()
		p.sendKeys("Escape")
		p.waitExit(0)
		p.checkRestored()
	})

	t.Run("ctrl-c", func(t *testing.T) {
		t.Parallel()
		p := startPane(t, tmux, bin)
		p.waitStarted()
		p.sendKeys("C-c")
		p.waitExit(0)
		p.checkRestored()
	})

	t.Run("sigterm", func(t *testing.T) {
		t.Parallel()
		p := startPane(t, tmux, bin)
		p.waitStarted()
		if err := syscall.Kill(p.pid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		p.waitExit(128 + int(syscall.SIGTERM))
		p.checkRestored()
	})

	t.Run("error", func(t *testing.T) {
		t.Parallel()
		p := startPane(t, tmux, bin, "-tps", "-3") // the terminal is open when the loop refuses the rate
		p.waitExit(1)
		p.checkRestored()
	})

	t.Run("panic", func(t *testing.T) {
		t.Parallel()
		p := startPane(t, tmux, bin, "-panic-at-tick", "3")
		p.waitExit(exitPanic)
		p.checkRestored()
	})
}

// buildBounce builds the command into a temporary directory.
func buildBounce(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bounce")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("building bounce: %v\n%s", err, out)
	}
	return bin
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// runBin runs the command with args and returns its output, stdout and stderr, and its exit
// status.
func runBin(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("running %s: %v", bin, err)
	return "", 0
}

// pane is a tmux server of its own with one 80x24 pane running a shell.
type pane struct {
	t       *testing.T
	tmuxBin string
	socket  string
	session string
	pidFile string
}

// startPane starts a tmux server with an 80x24 pane whose shell runs bounce with args, then
// prints its exit status as EXIT=n and waits for more commands.
func startPane(t *testing.T, tmuxBin, bin string, args ...string) *pane {
	t.Helper()
	dir := t.TempDir()
	p := &pane{t: t, tmuxBin: tmuxBin, socket: filepath.Join(dir, "tmux.sock"), session: "bounce",
		pidFile: filepath.Join(dir, "pid")}
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", p.session, "env", "PS1=$ ", "sh")
	t.Cleanup(func() { _ = exec.Command(p.tmuxBin, "-S", p.socket, "kill-server").Run() })
	// The shell writes its pid and execs bounce, so the pid is bounce's. The quotes keep the
	// markers that the test looks for out of the echoed command line.
	cmd := fmt.Sprintf(`sh -c 'echo $$ > %s; exec %s %s'; echo EXIT="$?"`, p.pidFile, bin, strings.Join(args, " "))
	p.sendKeys("-l", cmd)
	p.sendKeys("Enter")
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmuxBin, append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *pane) sendKeys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", p.session}, keys...)...)
}

// screen is a capture of the pane, one string a row, trailing blanks removed.
type screen []string

func (p *pane) capture() screen {
	p.t.Helper()
	return p.captureArgs()
}

// captureArgs captures the pane with extra capture-pane arguments.
func (p *pane) captureArgs(args ...string) screen {
	p.t.Helper()
	out := p.tmux(append([]string{"capture-pane", "-p", "-t", p.session}, args...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func (s screen) String() string { return strings.Join(s, "\n") }

// status returns the status line: the last row that is not blank.
func (s screen) status() string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != "" {
			return s[i]
		}
	}
	return ""
}

var frameRE = regexp.MustCompile(` f(\d+) `)

// frame returns the frame number on the status line, or 0.
func (s screen) frame() uint64 {
	m := frameRE.FindStringSubmatch(s.status())
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	return n
}

// box returns the rows between the top border and the status line.
func (s screen) box() string {
	if len(s) < 3 {
		return ""
	}
	return strings.Join(s[1:len(s)-1], "\n")
}

// balls counts the cells of the box that show part of a ball.
func (s screen) balls() int {
	n := 0
	for _, r := range s.box() {
		if r >= 0x2800 && r <= 0x28ff || r == '▀' || r == '▄' || r == '█' {
			n++
		}
	}
	return n
}

// waitFor polls the pane until ok accepts its screen, and returns that screen.
func (p *pane) waitFor(what string, ok func(screen) bool) screen {
	p.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		s := p.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStarted waits for bounce to draw its first frames: the border, the balls and the
// status line in interpolate mode.
func (p *pane) waitStarted() {
	p.t.Helper()
	p.waitFor("bounce to draw its box, balls and status line", func(s screen) bool {
		return len(s) == 24 && strings.HasPrefix(s[0], "┌─ bounce") && strings.HasSuffix(s[0], "┐") &&
			s[22] == "└"+strings.Repeat("─", 78)+"┘" && s.balls() > 0 &&
			regexp.MustCompile(`^interpolate [\d.]+fps [\d.]+tps p99 [\d.]+ms drop [\d.]+ms x1 10Hz f\d+ 80x24`).MatchString(s[23])
	})
}

// waitExit waits for the shell to print bounce's exit status, and checks it.
func (p *pane) waitExit(want int) {
	p.t.Helper()
	// Not anchored to the start of a line: after a resize, the shell's prompt may come first.
	exitRE := regexp.MustCompile(`EXIT=(\d+)`)
	s := p.waitFor("bounce to exit", func(s screen) bool { return exitRE.MatchString(s.String()) })
	if m := exitRE.FindStringSubmatch(s.String()); m[1] != strconv.Itoa(want) {
		p.t.Errorf("bounce exited with status %s, want %d; the screen:\n%s", m[1], want, s)
	}
}

// checkRestored runs stty -a in the pane's shell and checks that the terminal is back in
// cooked mode, with echo.
func (p *pane) checkRestored() {
	p.t.Helper()
	p.sendKeys("-l", `echo STTY-"BEGIN"; stty -a; echo STTY-"END"`)
	p.sendKeys("Enter")
	p.waitFor("stty -a", func(s screen) bool { return strings.Contains(s.String(), "STTY-END") })
	// With the history, joining wrapped lines, in case the output scrolled.
	all := p.captureArgs("-J", "-S", "-200").String()
	out := all[strings.LastIndex(all, "STTY-BEGIN"):strings.LastIndex(all, "STTY-END")]
	for _, flag := range []string{"icanon", "echo", "isig", "icrnl", "opost"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(out) {
			p.t.Errorf("the terminal is not restored: stty -a shows no %q:\n%s", flag, out)
		}
	}
}

// pid returns bounce's process id, written by the pane's shell.
func (p *pane) pid() int {
	p.t.Helper()
	var pid int
	p.waitFor("bounce's pid", func(screen) bool {
		b, err := os.ReadFile(p.pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}
