package main

// End-to-end tests over real sockets: two duel processes on 127.0.0.1, directly and through
// cmd/netsim, each replaying its own recording afterwards. The timeouts only bound how long a
// failing test takes; no assertion depends on how fast the machine is.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/replay"
)

// bins are the commands the tests run, built once by TestMain.
var bins struct {
	duel, netsim, relay string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "duel-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.duel, bins.netsim, bins.relay = filepath.Join(dir, "duel"), filepath.Join(dir, "netsim"), filepath.Join(dir, "relay")
	for bin, pkg := range map[string]string{bins.duel: ".", bins.netsim: "../netsim", bins.relay: "../relay"} {
		args := []string{"build", "-o", bin, pkg}
		if raceEnabled {
			args = append(args[:1], append([]string{"-race"}, args[1:]...)...)
		}
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	// The commands the tests start keep a temporary recording in case of a desync, and those
	// the tests kill leave it behind: here it goes with the binaries, not in the system's
	// temporary directory.
	tmp := filepath.Join(dir, "tmp")
	if err := errors.Join(os.Mkdir(tmp, 0o700), os.Setenv("TMPDIR", tmp)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testTicks is the tick whose checksum the two peers print: 600 (10 s of play) by default;
// GAMELOOP_DUEL_TICKS=1800 runs the 30 s game that docs/duel.md quotes.
func testTicks(t *testing.T) int {
	t.Helper()
	s := os.Getenv("GAMELOOP_DUEL_TICKS")
	if s == "" {
		return 600
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxTicks {
		t.Fatalf("GAMELOOP_DUEL_TICKS=%q: want a number of ticks", s)
	}
	return n
}

// process is a command started by a test, its output collected as it comes.
type process struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// lockedWriter appends to a buffer under the process's lock.
type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// start starts bin with args; the process is killed when the test ends, if it has not
// exited by then.
func start(t *testing.T, name, bin string, args ...string) *process {
	t.Helper()
	return startEnv(t, nil, name, bin, args...)
}

// startEnv is start with variables (as "NAME=value") added to the process's environment.
func startEnv(t *testing.T, env []string, name, bin string, args ...string) *process {
	t.Helper()
	p := &process{t: t, name: name, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout = lockedWriter{&p.mu, &p.stdout}
	p.cmd.Stderr = lockedWriter{&p.mu, &p.stderr}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// output returns what the process has written so far.
func (p *process) output() (stdout, stderr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String(), p.stderr.String()
}

// waitFor waits for re to match the process's stdout (or its stderr), and returns the match's
// first group.
func (p *process) waitFor(re *regexp.Regexp, stderr bool, within time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(within)
	for {
		out, errOut := p.output()
		text := out
		if stderr {
			text = errOut
		}
		if m := re.FindStringSubmatch(text); m != nil {
			return m[1]
		}
		select {
		case <-p.done:
			out, errOut = p.output()
			p.t.Fatalf("%s exited (%v) before printing %q:\nstdout: %s\nstderr: %s", p.name, p.err, re, out, errOut)
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s printed no %q in %v:\nstdout: %s\nstderr: %s", p.name, re, within, out, errOut)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits for the process to exit and returns its exit status.
func (p *process) wait(within time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		out, errOut := p.output()
		p.t.Fatalf("%s did not exit in %v:\nstdout: %s\nstderr: %s", p.name, within, out, errOut)
	}
	if p.err == nil {
		return 0
	}
	if exit, ok := p.err.(*exec.ExitError); ok {
		return exit.ExitCode()
	}
	p.t.Fatalf("%s: %v", p.name, p.err)
	return -1
}

var (
	waitingRE    = regexp.MustCompile(`waiting for the other player on (\S+)`)
	forwardingRE = regexp.MustCompile(`forwarding (\S+) ->`)
	checksumRE   = regexp.MustCompile(`(?m)^tick (\d+) checksum ([0-9a-f]{16})$`)
	statsRE      = regexp.MustCompile(`duel: \d+ ticks in .*`)
)

// wantChecksum waits for headless peer p to end, and fails the test unless it exited 0 after
// printing tick ticks's checksum line; it returns the checksum, the line and p's stderr.
func wantChecksum(t *testing.T, p *process, ticks string, within time.Duration) (sum, line, errOut string) {
	t.Helper()
	code := p.wait(within)
	out, errOut := p.output()
	m := checksumRE.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != ticks {
		t.Fatalf("%s: exit status %d, want 0 and tick %s's checksum:\nstdout: %s\nstderr: %s", p.name, code, ticks, out, errOut)
	}
	return m[2], m[0], errOut
}

// playPair plays a headless game of ticks ticks between two bots, the second peer connecting
// through netsim with preset if preset is not empty, and checks that both print the same
// checksum for the tick and that each one's recording holds it and replays matched.
func playPair(t *testing.T, preset string, ticks int) {
	t.Helper()
	playPairWith(t, preset, ticks, nil, nil)
}

// playPairWith is playPair with more flags for each peer.
func playPairWith(t *testing.T, preset string, ticks int, flagsA, flagsB []string) {
	t.Helper()
	dir := t.TempDir()
	// The game's time at 60 Hz, slowed at most 10% by time sync, plus the handshake; three
	// times that and a minute is room for a loaded machine.
	within := 3*time.Duration(ticks)*time.Second/60 + time.Minute
	n := strconv.Itoa(ticks)
	recA, recB := filepath.Join(dir, "a.rec"), filepath.Join(dir, "b.rec")
	a := start(t, "duel -listen", bins.duel, append([]string{"-listen", "127.0.0.1:0", "-headless", "-ticks", n, "-bot", "1", "-record", recA}, flagsA...)...)
	addr := a.waitFor(waitingRE, true, within)
	var proxy *process
	if preset != "" {
		proxy = start(t, "netsim", bins.netsim, "-listen", "127.0.0.1:0", "-to", addr, "-preset", preset, "-seed", "1")
		addr = proxy.waitFor(forwardingRE, false, within)
	}
	b := start(t, "duel -connect", bins.duel, append([]string{"-connect", addr, "-headless", "-ticks", n, "-bot", "2", "-record", recB}, flagsB...)...)

	sums := map[string]string{}
	for _, p := range []*process{a, b} {
		sum, line, errOut := wantChecksum(t, p, n, within)
		sums[p.name] = sum
		t.Logf("%s: %s", p.name, line)
		if st := statsRE.FindString(errOut); st != "" {
			t.Logf("%s: %s", p.name, st)
		}
	}
	if proxy != nil {
		if err := proxy.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		proxy.wait(within)
		out, _ := proxy.output()
		t.Logf("netsim:\n%s", out)
	}
	if sums[a.name] != sums[b.name] {
		t.Fatalf("tick %d: checksum %s at the listener, %s at the other peer", ticks, sums[a.name], sums[b.name])
	}

	for _, rec := range []string{recA, recB} {
		checkRecorded(t, rec, uint64(ticks), sums[a.name])
		ctx, cancel := context.WithTimeout(context.Background(), within)
		out, err := exec.CommandContext(ctx, bins.duel, "-replay", rec).CombinedOutput()
		cancel()
		if err != nil || !regexp.MustCompile(`(?m)^replay: \d+ ticks, matched \(`).Match(out) {
			t.Fatalf("duel -replay %s: %v, output %s; want exit 0 and matched", filepath.Base(rec), err, out)
		}
		t.Logf("duel -replay %s: %s", filepath.Base(rec), out)
	}
}

// checkRecorded checks that the recording at path holds every tick up to ticks, with sum
// (hexadecimal) as the checksum of the last.
func checkRecorded(t *testing.T, path string, ticks uint64, sum string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := replay.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if rec.Ticks < ticks || !rec.Complete {
		t.Fatalf("%s: %d ticks, complete %v; want at least %d, complete", filepath.Base(path), rec.Ticks, rec.Complete, ticks)
	}
	for _, c := range rec.Checksums {
		if c.Tick == ticks {
			if got := fmt.Sprintf("%016x", c.Sum); got != sum {
				t.Fatalf("%s: tick %d's checksum is %s, the peers printed %s", filepath.Base(path), ticks, got, sum)
			}
			return
		}
	}
	t.Fatalf("%s: no checksum recorded for tick %d", filepath.Base(path), ticks)
}

// Two peers over loopback UDP: the same checksum for the tick, and recordings that replay.
func TestHeadlessOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 10 seconds or more")
	}
	t.Parallel()
	playPair(t, "", testTicks(t))
}

// The same through netsim's poor network: 100 ms ± 50 ms each way, 5% of packets lost.
func TestHeadlessThroughNetsimPoor(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 10 seconds or more")
	}
	t.Parallel()
	playPair(t, "poor", testTicks(t))
}

// Each peer chooses its own input delay and prediction window: one with no delay and a long
// window, the other with a long delay and a short window, the game is the same on both, and
// neither leaves before the other has the last tick confirmed. So is lockstep against rollback.
func TestHeadlessMixedSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two games of 3 seconds")
	}
	t.Parallel()
	playPairWith(t, "", 180, []string{"-delay", "0", "-window", "30"}, []string{"-delay", "6", "-window", "2"})
	playPairWith(t, "", 180, []string{"-window", "0"}, []string{"-delay", "0", "-window", "8"})
}

// A peer killed mid-game: the other says the other player is not heard from, then that it
// was lost (it did not say it was leaving), and exits 1 saying the tick it waited for was not
// confirmed; its figures show no ping or ticks ahead, which are no longer measured.
func TestPeerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game for a few seconds")
	}
	t.Parallel()
	a := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", "100000", "-bot", "1")
	addr := a.waitFor(waitingRE, true, time.Minute)
	b := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", "100000", "-bot", "2")
	playing := regexp.MustCompile(`duel: (playing): `)
	a.waitFor(playing, true, time.Minute)
	b.waitFor(playing, true, time.Minute)
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	b.wait(time.Minute)
	code := a.wait(time.Minute)
	_, errOut := a.output()
	for _, want := range []string{
		"the other player is not heard from: disconnecting in ",
		"the other player was lost after tick ",
		"(unheard for ",
		"the other player was lost before tick 100000 was confirmed",
		"ping -, - ticks ahead", // no longer measured: it read "ping 0s", and the last ticks ahead
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the listener's stderr has no %q", want)
		}
	}
	if code != exitError || t.Failed() {
		t.Fatalf("the listener: exit status %d, stderr:\n%s", code, errOut)
	}
	t.Logf("the listener, its peer killed:\n%s", errOut)
}

// The listener takes the other player's address from the first handshake that arrives, not
// from the first packet: stray packets from another address before the player connects do not
// take the player's place.
func TestListenerIgnoresStrayPackets(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 2 seconds")
	}
	t.Parallel()
	const ticks = "120"
	within := 2 * time.Minute
	a := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", ticks, "-bot", "1")
	addr := a.waitFor(waitingRE, true, within)
	stray, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close()
	for _, pkt := range []string{"hello", "\xe7N\x01\x03 not a handshake", strings.Repeat("x", 600)} {
		if _, err := stray.Write([]byte(pkt)); err != nil {
			t.Fatal(err)
		}
	}
	b := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", ticks, "-bot", "2")
	sums := map[string]string{}
	for _, p := range []*process{a, b} {
		sums[p.name], _, _ = wantChecksum(t, p, ticks, within)
	}
	if sums[a.name] != sums[b.name] {
		t.Fatalf("tick %s: checksum %s at the listener, %s at the other peer", ticks, sums[a.name], sums[b.name])
	}
}

// -connect :PORT joins the player listening on this machine, as net.Dial reads the address.
func TestConnectWithoutHost(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 2 seconds")
	}
	t.Parallel()
	const ticks = "120"
	within := 2 * time.Minute
	a := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", ticks, "-bot", "1")
	addr := a.waitFor(waitingRE, true, within)
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	b := start(t, "duel -connect", bins.duel, "-connect", ":"+port, "-headless", "-ticks", ticks, "-bot", "2")
	sums := map[string]string{}
	for _, p := range []*process{a, b} {
		sums[p.name], _, _ = wantChecksum(t, p, ticks, within)
	}
	if sums[a.name] != sums[b.name] {
		t.Fatalf("tick %s: checksum %s at the listener, %s at the other peer", ticks, sums[a.name], sums[b.name])
	}
}

// -connect to an address where no player answers says, within a second, that it waits for the
// other player and how many handshake tries it made, then gives up after -connect-timeout:
// exit 1 and a message that says why.
func TestConnectNoAnswer(t *testing.T) {
	t.Parallel()
	// A socket that reads nothing: the handshakes arrive, and no one answers.
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	addr := silent.LocalAddr().String()
	b := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", "60", "-bot", "2", "-connect-timeout", "2s")
	code := b.wait(time.Minute)
	_, errOut := b.output()
	waiting := regexp.MustCompile(`duel: waiting for the other player at ` + regexp.QuoteMeta(addr) + `: (\d+) tries in 1s of 2s`)
	gaveUp := regexp.MustCompile(`duel: no answer from the other player at ` + regexp.QuoteMeta(addr) + ` in 2s \((\d+) handshake tries\)`)
	w, g := waiting.FindStringSubmatchIndex(errOut), gaveUp.FindStringSubmatchIndex(errOut)
	if code != exitError || w == nil || g == nil || w[0] > g[0] {
		t.Fatalf("duel -connect %s with no one there: exit status %d, stderr:\n%s\nwant %d, %q then %q", addr, code, errOut, exitError, waiting, gaveUp)
	}
	if tries := atoi(errOut[g[2]:g[3]]); tries < 1 {
		t.Errorf("%d handshake tries in 2s: want one every 200 ms, one at least", tries)
	}
	t.Logf("duel -connect %s, no one there:\n%s", addr, errOut)
}

// The recording kept in case of a desync is a convenience, not a condition of the game: with a
// temporary directory where no file can be made (the right player), or a file that cannot
// grow past 512 bytes (the left player: a file size limit, which fails the recording's first
// chunk), each warns once and plays on to the end.
func TestRecordingInTheWay(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 3 seconds")
	}
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set a file size limit with")
	}
	const ticks = "180" // three chunks of the recording
	within := 2 * time.Minute
	dir := t.TempDir()
	// sh's ulimit -f counts blocks of 512 bytes. Past the limit a write fails (the signal the
	// system sends first, SIGXFSZ, is one that a Go program ignores).
	a := startEnv(t, []string{"TMPDIR=" + dir}, "duel -listen", sh, "-c", `ulimit -f 1 && exec "$@"`, "sh",
		bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", ticks, "-bot", "1")
	addr := a.waitFor(waitingRE, true, within)
	b := startEnv(t, []string{"TMPDIR=" + filepath.Join(dir, "missing")}, "duel -connect", bins.duel,
		"-connect", addr, "-headless", "-ticks", ticks, "-bot", "2")
	sums := map[string]string{}
	for _, p := range []*process{b, a} {
		sum, _, errOut := wantChecksum(t, p, ticks, within)
		if n := strings.Count(errOut, "playing on without one"); n != 1 {
			t.Errorf("%s warned %d times of its recording, want once:\n%s", p.name, n, errOut)
		}
		sums[p.name] = sum
		t.Logf("%s:\n%s", p.name, errOut)
	}
	if sums[a.name] != sums[b.name] {
		t.Fatalf("tick %s: checksum %s at the listener, %s at the other peer", ticks, sums[a.name], sums[b.name])
	}
	if left, err := filepath.Glob(filepath.Join(dir, "duel-*.rec")); err != nil || len(left) > 0 {
		t.Errorf("recordings left in TMPDIR: %v %v; want the one that stopped removed", left, err)
	}
}

// A third player who connects to a game already under way is refused by it: the third duel
// says that the other side's game is full and exits 1, and the two players play on.
func TestConnectToFullGame(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 2 seconds")
	}
	t.Parallel()
	const ticks = "120"
	within := 2 * time.Minute
	a := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", ticks, "-bot", "1")
	addr := a.waitFor(waitingRE, true, within)
	b := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", ticks, "-bot", "2")
	b.waitFor(regexp.MustCompile(`duel: (playing): `), true, within)
	c := start(t, "a third duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", ticks, "-bot", "3")
	code := c.wait(within)
	out, errOut := c.output()
	if want := "duel: the other side's game is full: the player at " + addr + " plays with someone else"; code != exitError ||
		!strings.Contains(errOut, want) || strings.Count(errOut, "game is full") != 1 || out != "" {
		t.Fatalf("%s: exit status %d, stdout %q, stderr:\n%s\nwant %d and %q once", c.name, code, out, errOut, exitError, want)
	}
	t.Logf("%s:\n%s", c.name, errOut)
	sums := map[string]string{}
	for _, p := range []*process{a, b} {
		sums[p.name], _, _ = wantChecksum(t, p, ticks, within)
	}
	if sums[a.name] != sums[b.name] {
		t.Fatalf("tick %s: checksum %s at the listener, %s at the other peer", ticks, sums[a.name], sums[b.name])
	}
}
