// Package wasmsite builds a game for the browser (GOOS=js GOARCH=wasm) with the go command that
// runs the program, and serves it with its page and the Go installation's wasm_exec.js: what
// cmd/bounceweb and cmd/duelweb serve, each adding routes of its own.
package wasmsite

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// was built again gets the new one.
func (s *Site) Handle(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(s.Page)
	})
	mux.HandleFunc("GET /"+s.Name, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, s.Wasm)
	})
	mux.HandleFunc("GET /wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, s.WasmExec)
	})
}
