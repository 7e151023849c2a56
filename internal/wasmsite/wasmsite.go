// Package wasmsite builds a game for the browser (GOOS=js GOARCH=wasm) with the go command that
// runs the program, and serves it with its page and the Go installation's wasm_exec.js: what
// cmd/bounceweb and cmd/duelweb serve, each adding routes of its own. It also has the timeouts
// of a server of files open to anyone (WriteTimeouts, NewServer), which cmd/lobby -static uses
// too.
package wasmsite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Timeouts of NewServer and Site.
const (
	// DefaultWriteTimeout is how long a write of a response may wait for the client to read
	// (see WriteTimeouts).
	DefaultWriteTimeout = 30 * time.Second
	// ReadHeaderTimeout is how long a client may take to send a request's header.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout is how long a connection may wait for its next request.
	IdleTimeout = 2 * time.Minute
)

// Site is a game built for the browser, and what serves it.
type Site struct {
	// Wasm is the path of the built game, served as /Name.
	Wasm string
	// WasmExec is the path of the Go installation's wasm_exec.js, served as /wasm_exec.js.
	WasmExec string
	// Name is the game's file name in the page's URLs, such as "bounce.wasm".
	Name string
	// Page is the page, served as /.
	Page []byte
	// WriteTimeout bounds each write of a response (see WriteTimeouts): a client that does not
	// read for that long is cut off. 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
}

// Build builds the package pkg (an import path) for the browser into dir/name, with the go
// command of the installation that built this program if it is there (so that go run with a
// given toolchain builds the game with the same one), else the one on PATH, and finds
// wasm_exec.js in that installation. It must run within the module that holds pkg; cmd names
// the command to say so in an error ("go run ./cmd/bounceweb").
func Build(ctx context.Context, dir, pkg, name, cmd string, page []byte) (*Site, error) {
	goBin := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			goBin = p
		}
	}
	out, err := exec.CommandContext(ctx, goBin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	s := &Site{Wasm: filepath.Join(dir, name), Name: name, Page: page}
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} { // Go 1.24 on, and before
		if fileExists(filepath.Join(goroot, p)) {
			s.WasmExec = filepath.Join(goroot, p)
			break
		}
	}
	if s.WasmExec == "" {
		return nil, fmt.Errorf("no wasm_exec.js in the Go installation at %s", goroot)
	}
	c := exec.CommandContext(ctx, goBin, "build", "-o", s.Wasm, pkg)
	c.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := c.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the game for the browser (from within the gameloop module: %s): %w\n%s", cmd, err, out)
	}
	return s, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Handle adds the site's routes to mux: GET / (the page), GET /Name (the game) and
// GET /wasm_exec.js, none of them cached by the browser, so that a page reloaded after the game
// was built again gets the new one. Each write of their responses is bounded by
// s.WriteTimeout.
func (s *Site) Handle(mux *http.ServeMux) {
	d := s.WriteTimeout
	if d == 0 {
		d = DefaultWriteTimeout
	}
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, WriteTimeouts(h, d)) }
	handle("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(s.Page)
	})
	handle("GET /"+s.Name, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, s.Wasm)
	})
	handle("GET /wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, s.WasmExec)
	})
}

// WriteTimeouts returns h with each write of its responses bounded by d: before each, the
// connection's write deadline is set d ahead. A client that does not read for d is cut off (the
// write fails and the server closes the connection), while one that reads, however slowly,
// gets the whole of a large file. Not for a handler that hijacks its connection (a
// WebSocket's): its ResponseWriter is no http.Hijacker.
func WriteTimeouts(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: d}, r)
	})
}

// deadlineWriter is a ResponseWriter whose every write has a deadline.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	if err := w.rc.SetWriteDeadline(time.Now().Add(w.d)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, fmt.Errorf("setting the write deadline: %w", err)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap returns the ResponseWriter wrapped, for http.ResponseController.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// NewServer returns a server of h open to anyone: a request's header must come within
// ReadHeaderTimeout, a connection waits IdleTimeout at most for its next request, and a
// response must be written within writeTimeout of its request, unless its handler moves the
// deadline on as it writes (WriteTimeouts, Site's routes). A WebSocket is not bound by it:
// net/http clears the deadlines of a connection its handler hijacks.
func NewServer(h http.Handler, writeTimeout time.Duration) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout, WriteTimeout: writeTimeout}
}
