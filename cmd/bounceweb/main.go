// Command bounceweb is the bounce demo in a web browser: it builds the game for WebAssembly
// (GOOS=js GOARCH=wasm, from ./cmd/bounceweb/wasm), serves it with its page and the Go
// installation's wasm_exec.js, and prints the address to open:
//
//	go run ./cmd/bounceweb
//	bounceweb: serving bounce at http://127.0.0.1:8080/
//
// The page runs the terminal demo's simulation, keys and status line (see cmd/bounce) on
// requestAnimationFrame, with backend/web, and reads the gamepads of the W3C standard mapping:
// South adds a ball, East removes one, North toggles gravity, the d-pad pushes the balls and
// the left stick accelerates them. It records the session from its start; s saves the
// recording, and so does quitting with q or Escape. With -record FILE the server writes each
// recording saved to FILE (replacing it); without, the browser downloads it as bounce.rec.
// Either replays on any machine:
//
//	go run ./cmd/bounceweb -record web.rec
//	go run ./cmd/bounce -replay web.rec
//
// The page's query sets the game's start, as cmd/bounce's flags do:
// http://127.0.0.1:8080/?seed=7&balls=9&tps=20&glyphs=half&cols=100&rows=30.
//
// The server listens on 127.0.0.1:8080 (-addr to change) until interrupted (Ctrl-C, SIGTERM),
// and exits 0 then; it exits 1 if it cannot build the game or listen, 2 on a bad flag.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/internal/cli"
	"github.com/gameloop-go/gameloop/internal/wasmsite"
	"github.com/gameloop-go/gameloop/replay"
)

//go:embed index.html
var indexHTML []byte

// maxRecording bounds a recording the server takes: an hour at 120 ticks per second, a
// checksum a tick, takes about 5 MB.
const maxRecording = 64 << 20

// options are the command's flags.
type options struct {
	addr   string
	record string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bounceweb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "the `address` to serve the game on")
	fs.StringVar(&o.record, "record", "", "write the recordings the page saves to this `file` (without it, the browser downloads them)")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, &cli.UsageError{Err: fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	return o, nil
}

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return cli.Report("bounceweb", err, stderr) // 0 for -h, 2 for a bad flag
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "bounceweb:", err)
		return 1
	}
	return 0
}

// run builds the game, serves it until ctx ends, and returns nil then.
func run(ctx context.Context, opts options, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "bounceweb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(stdout, "bounceweb: building the game for the browser (GOOS=js GOARCH=wasm)...")
	site, err := build(ctx, dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: site.handler(opts.record, stderr), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "bounceweb: serving bounce at http://%s/\n", ln.Addr())
	if opts.record != "" {
		fmt.Fprintf(stdout, "bounceweb: press s in the page to save the recording to %s\n", opts.record)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	fmt.Fprintln(stdout, "bounceweb: stopped")
	return nil
}

// site is what the server serves: the game, built, with its page and wasm_exec.js.
type site struct{ *wasmsite.Site }

// build builds the game into dir (see wasmsite.Build).
func build(ctx context.Context, dir string) (site, error) {
	s, err := wasmsite.Build(ctx, dir, "github.com/gameloop-go/gameloop/cmd/bounceweb/wasm", "bounce.wasm", "go run ./cmd/bounceweb", indexHTML)
	return site{s}, err
}

// handler serves the page, the game and wasm_exec.js, and takes recordings: a POST to /record
// with a recording of bounce writes it to record, if it is set.
func (s site) handler(record string, logw io.Writer) http.Handler {
	mux := http.NewServeMux()
	s.Handle(mux)
	mux.HandleFunc("POST /record", func(w http.ResponseWriter, r *http.Request) {
		if record == "" {
			http.Error(w, "this server takes no recordings: start it with -record FILE", http.StatusNotFound)
			return
		}
		msg, err := saveRecording(http.MaxBytesReader(w, r.Body, maxRecording), record)
		if err != nil {
			fmt.Fprintln(logw, "bounceweb: a recording from the page:", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(logw, "bounceweb:", msg)
		_, _ = io.WriteString(w, msg)
	})
	return mux
}

// saveRecording reads a recording of bounce from body, checks that it is one (whole, of
// bounce, with a start a replay accepts), and writes it to path, replacing what was there only
// once it is all written.
func saveRecording(body io.Reader, path string) (string, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return "", fmt.Errorf("reading the recording: %w", err)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("not a whole recording: %w", err)
	}
	if rec.Name != bouncegame.RecordingName {
		return "", fmt.Errorf("a recording of %q, not of bounce", rec.Name)
	}
	if _, err := bouncegame.ParseStart(rec.Meta); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bounceweb-*.rec")
	if err != nil {
		return "", fmt.Errorf("-record: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	if err := tmp.Chmod(0o644); err != nil {
		return "", errors.Join(fmt.Errorf("-record: %w", err), tmp.Close())
	}
	if _, err := tmp.Write(data); err != nil {
		return "", errors.Join(fmt.Errorf("-record %s: %w", path, err), tmp.Close())
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("-record %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("-record: %w", err)
	}
	// Counted as a replay counts them (replay.Result): every input, with those after the last
	// tick (the q that ended the session) said apart.
	inputs := fmt.Sprintf("%d inputs", len(rec.Inputs))
	if n := rec.TrailingInputs(); n > 0 {
		inputs += fmt.Sprintf(", %d of them after the last tick", n)
	}
	return fmt.Sprintf("saved the recording of %d ticks, %s to %s", rec.Ticks, inputs, path), nil
}
