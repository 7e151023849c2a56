// Package glfwtest runs tests of GLFW windows as real windows on an X server: it serves the
// main OS thread to tests from TestMain, starts a virtual X server (Xvfb) of the test binary's
// own, drives windows with xdotool, and closes them the way a window manager does.
//
// A test package uses it from TestMain:
//
//	func TestMain(m *testing.M) { glfwtest.Main(m) }
//
//	func TestWindow(t *testing.T) {
//		glfwtest.RequireDisplay(t)
//		probe := glfwtest.NewProbe() // the game calls probe.Serve() at the end of Render
//		game := glfwtest.Start(t, func() error { ...open a window, run a loop... }, stop)
//		id := glfwtest.FindWindow(t, "title")
//		glfwtest.HoldKey(t, id, "Up", 10*time.Second, "the colour to rise", func() bool {
//			var ok bool
//			probe.Run(t, time.Second, func() { ok = ...read the frame back... })
//			return ok
//		})
//		glfwtest.RequestClose(t, id)
//		if err := game.Wait(t, 10*time.Second); err != nil { ... }
//	}
//
// When no X server can be reached, RequireDisplay skips the test, unless the environment has
// GAMELOOP_REQUIRE_ALL=1 (as the project's test script and CI do): then it fails.
package glfwtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The main-thread plumbing. GLFW must run on the process's main thread, which only TestMain
// runs on; Main serves calls on it and Do hands them over. These variables are set once by Main,
// before any test runs, and only read afterwards.
var (
	mainCalls   chan func()
	mainStarted bool
	xvfbError   error // why Main could not start a virtual X server, if it tried
)

// Main runs the tests of m with the main OS thread serving Do, and exits with their status.
// When Xvfb is installed, it starts a virtual X server of the tests' own and points DISPLAY at
// it; otherwise the tests use the X server DISPLAY names, if any. Call it from TestMain, which
// runs on the main thread.
func Main(m *testing.M) {
	runtime.LockOSThread()
	mainCalls = make(chan func())
	mainStarted = true

	// A private X server when Xvfb is installed, even under xvfb-run: go test runs the test
	// binaries of several packages at once, and on a shared server their key presses, pointer
	// moves and focus changes would reach each other's windows.
	xvfb, err := startXvfb()
	if err != nil {
		xvfbError = err
	}

	if os.Getenv("DISPLAY") != "" {
		holdDisplay()
	}

	done := make(chan int)
	go func() {
		code := m.Run()
		select {
		case done <- code:
		case <-time.After(30 * time.Second):
			// A test left a function running on the main thread (a game whose window it could
			// not close): nothing else will end it.
			fmt.Fprintln(os.Stderr, "glfwtest: the main thread is still busy 30s after the tests ended; exiting")
			os.Exit(max(code, 1))
		}
	}()
	var code int
serve:
	for {
		select {
		case f := <-mainCalls:
			f()
		case code = <-done:
			break serve
		}
	}
	if xvfb != nil {
		_ = xvfb.Process.Kill()
		_ = xvfb.Wait()
	}
	os.Exit(code)
}

// Do runs f on the main thread and returns its error; a panic in f is returned as an error.
// Do must not be called from the main thread itself, and f must not call t.Fatal or t.Skip
// (they would end the main goroutine): return an error instead.
func Do(f func() error) (err error) {
	if !mainStarted {
		return errors.New("glfwtest: Do needs glfwtest.Main to be called from TestMain")
	}
	done := make(chan struct{})
	mainCalls <- func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				buf := make([]byte, 16<<10)
				err = fmt.Errorf("glfwtest: panic on the main thread: %v\n%s", v, buf[:runtime.Stack(buf, false)])
			}
		}()
		err = f()
	}
	<-done
	return err
}

// startXvfb starts a virtual X server on a free display and sets DISPLAY to it.
func startXvfb() (*exec.Cmd, error) {
	path, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, fmt.Errorf("the Xvfb command is not installed: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	defer r.Close()
	// -displayfd 3: Xvfb picks a free display and writes its number to the pipe once ready.
	cmd := exec.Command(path, "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	w.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, errors.New("starting Xvfb: it exited without a display number")
		}
		os.Setenv("DISPLAY", ":"+n)
		return cmd, nil
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, errors.New("starting Xvfb: no display number within 10s")
	}
}

// RequireDisplay skips t when no X server can be reached, or fails it when the environment has
// GAMELOOP_REQUIRE_ALL=1. It also makes sure Main serves the main thread.
func RequireDisplay(t testing.TB) {
	t.Helper()
	if !mainStarted {
		t.Fatal("glfwtest: call glfwtest.Main from TestMain")
	}
	var why string
	switch {
	case os.Getenv("DISPLAY") == "" && xvfbError != nil:
		why = "DISPLAY is not set, and " + xvfbError.Error()
	case os.Getenv("DISPLAY") == "":
		why = "DISPLAY is not set"
	case !displayReachable():
		why = fmt.Sprintf("cannot connect to the X server at DISPLAY=%q", os.Getenv("DISPLAY"))
	default:
		return
	}
	if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
		t.Fatalf("no X server (%s), and GAMELOOP_REQUIRE_ALL=1 requires the window tests to run", why)
	}
	t.Skipf("no X server: %s (run under xvfb-run, or install Xvfb)", why)
}

// RequireTool skips or fails t, as RequireDisplay does, when a command is not installed.
func RequireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
			t.Fatalf("%s is not installed, and GAMELOOP_REQUIRE_ALL=1 requires the window tests to run", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// Xdotool runs xdotool with args and returns its output, failing t if it fails.
func Xdotool(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// FindWindow waits for a mapped window whose title is exactly title and returns its X id.
func FindWindow(t testing.TB, title string) string {
	t.Helper()
	return FindWindowMatching(t, "^"+regexp.QuoteMeta(title)+"$")
}

// FindWindowMatching waits for a mapped window whose title matches the regular expression
// pattern and returns its X id.
func FindWindowMatching(t testing.TB, pattern string) string {
	t.Helper()
	var id string
	Eventually(t, 20*time.Second, "a window titled "+pattern, func() bool {
		var err error
		id, err = Search(pattern)
		return err == nil
	})
	return id
}

// Search returns the X id of the first visible window whose title matches the regular
// expression pattern, or an error if there is none.
func Search(pattern string) (string, error) {
	out, err := exec.Command("xdotool", "search", "--onlyvisible", "--name", pattern).Output()
	if err != nil {
		return "", fmt.Errorf("xdotool search %q: %w", pattern, err)
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 {
		return "", fmt.Errorf("no window titled %q", pattern)
	}
	return ids[0], nil
}

// HoldKey presses key in the window with the X id given, holds it until cond is true (polled up
// to timeout), and releases it. Holding until the game has seen the effect, rather than for a
// fixed time, keeps a slow machine from missing a press shorter than a tick.
func HoldKey(t testing.TB, id, key string, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Xdotool(t, "windowfocus", "--sync", id)
	Xdotool(t, "keydown", key)
	defer func() {
		// Not Xdotool: a t.Fatal from here could come on top of one from Eventually.
		if out, err := exec.Command("xdotool", "keyup", key).CombinedOutput(); err != nil {
			t.Errorf("xdotool keyup %s: %v\n%s", key, err, out)
		}
	}()
	Eventually(t, timeout, what+" while "+key+" is held", cond)
}

// Eventually polls cond every 10 ms until it is true, and fails t with what was awaited if
// timeout passes first.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// RequestClose asks the window with the X id given to close, as a window manager does when the
// user clicks its close button: by a WM_DELETE_WINDOW client message. (xdotool windowclose
// destroys the window instead, under the program's feet.)
func RequestClose(t testing.TB, id string) {
	t.Helper()
	var win uint64
	if _, err := fmt.Sscan(id, &win); err != nil {
		t.Fatalf("RequestClose: bad window id %q: %v", id, err)
	}
	if err := sendDeleteWindow(win); err != nil {
		t.Fatalf("RequestClose: %v", err)
	}
}

// Probe lets a test look at a running game from the main thread: the game calls Serve once a
// frame (after drawing, before the swap, so the frame can be read back), and the test's
// goroutine calls Run to have a function run there.
type Probe struct{ calls chan func() }

// NewProbe returns a probe.
func NewProbe() *Probe { return &Probe{calls: make(chan func())} }

// Serve runs the functions queued by Run. Call it on the main thread, from the game.
func (p *Probe) Serve() {
	for {
		select {
		case f := <-p.calls:
			f()
		default:
			return
		}
	}
}

// Run has f run by the next Serve and waits for it, failing t if no Serve comes within
// timeout.
func (p *Probe) Run(t testing.TB, timeout time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	select {
	case p.calls <- func() { defer close(done); f() }:
	case <-time.After(timeout):
		t.Fatalf("probe: the game served no probe within %v", timeout)
	}
	<-done
}

// Running is a function running on the main thread, started by Start.
type Running struct {
	done chan struct{}
	err  error
}

// Start runs f on the main thread (see Do) while the test goes on, typically a game's loop.
// If f is still running when t ends (the test failed half-way), stop is called, from the
// test's goroutine, to end it (by probing the game to close its window, say), and the cleanup
// waits for f to return: the main thread must be free again for the next test.
func Start(t testing.TB, f func() error, stop func()) *Running {
	r := &Running{done: make(chan struct{})}
	go func() {
		r.err = Do(f)
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
			return
		default:
		}
		stop()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			t.Errorf("the function on the main thread did not end within 30s of being stopped")
		}
	})
	return r
}

// Done is closed when the function has returned.
func (r *Running) Done() <-chan struct{} { return r.done }

// Wait waits up to timeout for the function to return and returns its error; it fails t if
// the function does not return in time.
func (r *Running) Wait(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(timeout):
		t.Fatalf("the function on the main thread did not return within %v", timeout)
		return nil
	}
}

// SignalCommand builds the command in the test's directory (go build), starts it with args,
// waits for a visible window whose title matches the regular expression pattern, sends the
// command sig, and returns what it printed on standard output once it has exited, and how it
// exited (nil for status 0). It fails t if the command does not exit within 20 seconds.
func SignalCommand(t testing.TB, pattern string, sig os.Signal, args ...string) (stdout string, exit error) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cmd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	FindWindowMatching(t, pattern)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case exit = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("%s did not exit within 20 s of %v; stderr: %s", filepath.Base(bin), sig, errOut.String())
	}
	if errOut.Len() > 0 {
		t.Logf("stderr: %s", errOut.String())
	}
	return out.String(), exit
}
