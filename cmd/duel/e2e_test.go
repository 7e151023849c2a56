package main

// The terminal test: two duels in two tmux sessions, the second connected to the first through
// netsim's poor network, keys typed in both, and both screens read back with capture-pane. It
// polls the screens until what it waits for shows up; the timeouts only bound how long a
// failing test takes.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/backend/term"
	"github.com/gameloop-go/gameloop/internal/duel"
)

// screenTimeout bounds every wait for a screen to show something.
const screenTimeout = time.Minute

func TestTerminalsThroughNetsim(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
			t.Fatal("tmux is not installed (scripts/packages/term.txt lists it), and GAMELOOP_REQUIRE_ALL=1")
		}
		t.Skip("tmux is not installed: skipping the terminal test")
	}
	if testing.Short() {
		t.Skip("plays in two terminals")
	}
	dir := t.TempDir()
	tm := &tmuxServer{t: t, bin: tmux, socket: filepath.Join(dir, "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command(tm.bin, "-S", tm.socket, "kill-server").Run() })

	left := tm.session("duel-left", "-listen", "127.0.0.1:0")
	addr := regexp.MustCompile(`waiting for the other player on (\S+)`).FindStringSubmatch(
		left.waitFor("the listener to wait", func(s screen) bool { return strings.Contains(s.String(), "waiting for the other player on ") }).String())[1]
	proxy := start(t, "netsim", bins.netsim, "-listen", "127.0.0.1:0", "-to", addr, "-preset", "poor", "-seed", "3")
	addr = proxy.waitFor(forwardingRE, false, screenTimeout)
	right := tm.session("duel-right", "-connect", addr)
	for _, p := range []*pane{left, right} {
		p.waitFor("the game to start", func(s screen) bool {
			m := tickRE.FindStringSubmatch(s.status())
			return len(s) == duel.ViewHeight && strings.HasPrefix(s[0], "┌─ duel ") && m != nil && atoi(m[1]) > 0
		})
	}

	// Each player moves their own paddle to the end of its column: the left one up with w,
	// the right one down with the arrow key. Each press moves a paddle one cell.
	middle := (duel.Height - duel.PaddleHeight) / 2
	for range middle + 4 {
		left.sendKeys("-l", "w")
		right.sendKeys("Down")
	}
	var moved int // a tick by which both screens showed both paddles moved
	for _, p := range []*pane{left, right} {
		s := p.waitFor("both paddles at their ends, on both screens", func(s screen) bool {
			return s.paddleTop(0) == 0 && s.paddleTop(1) == duel.Height-duel.PaddleHeight
		})
		m := tickRE.FindStringSubmatch(s.status())
		if m == nil {
			t.Fatalf("%s: no tick on the status line %q", p.name, s.status())
		}
		moved = max(moved, atoi(m[1]))
	}

	// Both show the same checksum for the same confirmed tick, one after the paddles moved:
	// the screens are read in turn until a tick seen on one has been seen on the other.
	seen := [2]map[string]string{{}, {}}
	deadline := time.Now().Add(screenTimeout)
	common := ""
	for common == "" {
		for i, p := range []*pane{left, right} {
			if m := syncRE.FindStringSubmatch(p.capture().status()); m != nil && atoi(m[1]) >= moved {
				seen[i][m[1]] = m[2]
				if _, ok := seen[1-i][m[1]]; ok {
					common = m[1]
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no confirmed tick shown on both screens: left %v, right %v", seen[0], seen[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
	if seen[0][common] != seen[1][common] {
		t.Fatalf("tick %s: checksum %s on the left screen, %s on the right", common, seen[0][common], seen[1][common])
	}
	t.Logf("paddles moved on both screens by tick %d; tick %s: checksum %s on both screens; left: %q, right: %q", moved, common, seen[0][common], left.capture().status(), right.capture().status())

	left.sendKeys("-l", "q")
	left.waitExit(0)
	right.waitFor("the left player gone", func(s screen) bool { return strings.Contains(s.String(), "the other player left") })
	right.sendKeys("Escape")
	right.waitExit(0)
}

// Quitting while waiting for the other player: q, Escape or Ctrl-C end duel with status 0,
// the terminal restored (the shell prints the status on a clean line).
func TestTerminalQuitWhileWaiting(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
			t.Fatal("tmux is not installed (scripts/packages/term.txt lists it), and GAMELOOP_REQUIRE_ALL=1")
		}
		t.Skip("tmux is not installed: skipping the terminal test")
	}
	tm := &tmuxServer{t: t, bin: tmux, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command(tm.bin, "-S", tm.socket, "kill-server").Run() })
	for i, key := range [][]string{{"-l", "q"}, {"Escape"}, {"C-c"}} {
		p := tm.session(fmt.Sprintf("duel-%d", i), "-listen", "127.0.0.1:0")
		p.waitFor("the listener to wait", func(s screen) bool {
			return len(s) > 1 && strings.HasPrefix(s[len(s)-2], "waiting for the other player on 127.0.0.1:")
		})
		p.sendKeys(key...)
		p.waitExit(0)
	}
}

var (
	syncRE = regexp.MustCompile(` sync (\d+) ([0-9a-f]{16})$`)
	tickRE = regexp.MustCompile(` tick (\d+)`)
)

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// tmuxServer is a tmux server of the test's own.
type tmuxServer struct {
	t      *testing.T
	bin    string
	socket string
}

func (tm *tmuxServer) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command(tm.bin, append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pane is an 80x24 tmux session whose shell runs duel, then prints its exit status as EXIT=n.
type pane struct {
	tm   *tmuxServer
	name string
}

// session starts duel with args in a pane of 80 by 24 cells.
func (tm *tmuxServer) session(name string, args ...string) *pane {
	tm.t.Helper()
	p := &pane{tm: tm, name: name}
	tm.run("new-session", "-d", "-x", "80", "-y", "24", "-s", name, "env", "PS1=$ ", "sh")
	// The quotes keep EXIT= in the echoed command line from matching.
	p.sendKeys("-l", fmt.Sprintf(`%s %s; echo EXIT"="$?`, bins.duel, strings.Join(args, " ")))
	p.sendKeys("Enter")
	return p
}

// target names the pane's session exactly, not as a prefix or a pattern.
func (p *pane) target() string { return "=" + p.name + ":" }

func (p *pane) sendKeys(keys ...string) {
	p.tm.t.Helper()
	p.tm.run(append([]string{"send-keys", "-t", p.target()}, keys...)...)
}

// screen is a capture of a pane, one string a row, trailing blanks removed.
type screen []string

func (p *pane) capture() screen {
	p.tm.t.Helper()
	out := p.tm.run("capture-pane", "-p", "-t", p.target())
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

// paddleTop returns the first row of the field (from 0) where player's paddle is drawn, or -1.
func (s screen) paddleTop(player int) int {
	column := 2 // the border, then the left paddle's column
	if player == 1 {
		column = duel.ViewWidth - 3
	}
	for y := 1; y <= duel.Height && y < len(s); y++ {
		row := []rune(s[y])
		if column < len(row) && strings.ContainsRune("█▄▀", row[column]) {
			return y - 1
		}
	}
	return -1
}

// waitFor polls the pane until ok accepts its screen, and returns that screen.
func (p *pane) waitFor(what string, ok func(screen) bool) screen {
	p.tm.t.Helper()
	deadline := time.Now().Add(screenTimeout)
	for {
		s := p.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.tm.t.Fatalf("%s: timed out waiting for %s; the screen:\n%s", p.name, what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for the shell to print duel's exit status, and checks it.
func (p *pane) waitExit(want int) {
	p.tm.t.Helper()
	exitRE := regexp.MustCompile(`EXIT=(\d+)`)
	s := p.waitFor("duel to exit", func(s screen) bool { return exitRE.MatchString(s.String()) })
	if m := exitRE.FindStringSubmatch(s.String()); m[1] != fmt.Sprint(want) {
		p.tm.t.Errorf("%s: duel exited with status %s, want %d; the screen:\n%s", p.name, m[1], want, s)
	}
}

// -connect to an address where no one answers: the screen says that it waits for the other
// player and counts the handshake tries; q quits.
func TestTerminalConnectWaiting(t *testing.T) {
	tmux := lookPathTmux(t)
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	addr := silent.LocalAddr().String()
	tm := &tmuxServer{t: t, bin: tmux, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command(tm.bin, "-S", tm.socket, "kill-server").Run() })
	p := tm.session("duel-connect", "-connect", addr, "-connect-timeout", "0")
	tries := regexp.MustCompile(`^waiting for the other player at ` + regexp.QuoteMeta(addr) + `: (\d+) tries in \d+s$`)
	s := p.waitFor("the wait for the other player, with the tries counted", func(s screen) bool {
		if len(s) < 2 {
			return false
		}
		m := tries.FindStringSubmatch(s[len(s)-2])
		return m != nil && atoi(m[1]) >= 2
	})
	t.Logf("%s", s[len(s)-2])
	p.sendKeys("-l", "q")
	p.waitExit(0)
}

// lookPathTmux returns tmux's path, or skips the test without it.
func lookPathTmux(t *testing.T) string {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
			t.Fatal("tmux is not installed (scripts/packages/term.txt lists it), and GAMELOOP_REQUIRE_ALL=1")
		}
		t.Skip("tmux is not installed: skipping the terminal test")
	}
	return tmux
}

// A desync is shown whole on the message row of an 80-column terminal, with both checksums.
// (A longer message is shown whole in a wider terminal: internal/duel's TestViewWide. The view
// reads the terminal's width with its Size method.)
func TestTerminalDesyncShownWhole(t *testing.T) {
	tmux := lookPathTmux(t)
	if testing.Short() {
		t.Skip("plays in two terminals")
	}
	dir := t.TempDir()
	tm := &tmuxServer{t: t, bin: tmux, socket: filepath.Join(dir, "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command(tm.bin, "-S", tm.socket, "kill-server").Run() })
	left := tm.session("duel-left", "-listen", "127.0.0.1:0", "-seed", "1", "-bot", "1")
	addr := regexp.MustCompile(`waiting for the other player on (\S+)`).FindStringSubmatch(
		left.waitFor("the listener to wait", func(s screen) bool { return strings.Contains(s.String(), "waiting for the other player on ") }).String())[1]
	right := tm.session("duel-right", "-connect", addr, "-seed", "2", "-bot", "2")
	desync := regexp.MustCompile(`DESYNC.*at tick 60.* 0x[0-9a-f]{16} here, 0x[0-9a-f]{16} there`)
	for _, p := range []*pane{left, right} {
		s := p.waitFor("the desync, both checksums shown", func(s screen) bool { return desync.MatchString(s.String()) })
		t.Logf("%s: %s", p.name, desync.FindString(s.String()))
	}
	left.sendKeys("-l", "q")
	left.waitExit(exitError)
	right.sendKeys("-l", "q")
	right.waitExit(exitError)
}

// A player whose machine stops answering (killed) is told apart from one who quits: the other
// side's screen says the player was lost, and no longer shows a round trip or ticks ahead that
// nothing measures any more.
func TestTerminalPeerLost(t *testing.T) {
	tmux := lookPathTmux(t)
	if testing.Short() {
		t.Skip("plays in a terminal against a process that is killed")
	}
	tm := &tmuxServer{t: t, bin: tmux, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command(tm.bin, "-S", tm.socket, "kill-server").Run() })
	left := tm.session("duel-left", "-listen", "127.0.0.1:0", "-bot", "1")
	addr := regexp.MustCompile(`waiting for the other player on (\S+)`).FindStringSubmatch(
		left.waitFor("the listener to wait", func(s screen) bool { return strings.Contains(s.String(), "waiting for the other player on ") }).String())[1]
	right := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", "100000", "-bot", "2")
	right.waitFor(regexp.MustCompile(`duel: (playing): `), true, screenTimeout)
	left.waitFor("the game to run", func(s screen) bool {
		m := tickRE.FindStringSubmatch(s.status())
		return m != nil && atoi(m[1]) > 0
	})
	if err := right.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	right.wait(screenTimeout)
	s := left.waitFor("the other player lost", func(s screen) bool { return strings.Contains(s.String(), "the other player was lost") })
	if st := s.status(); !strings.HasPrefix(st, "left ping - ahead - rollback ") {
		t.Errorf("status line %q: want no ping or ticks ahead once the other player is lost", st)
	}
	t.Logf("%s\n%s", s[len(s)-2], s.status())
	left.sendKeys("-l", "q")
	left.waitExit(0)
}

// The view draws its message row and status line across a Surface that says its width, as a
// terminal window does.
var _ interface{ Size() (width, height int) } = (*term.Window)(nil)
