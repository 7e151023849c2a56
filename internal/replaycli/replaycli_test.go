package replaycli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// counter is a deterministic game: each tick adds its step; a key press doubles the step.
type counter struct {
	sum, step uint64
	stopAt    uint64
}

func (c *counter) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress {
		c.step *= 2
	}
	return nil
}

func (c *counter) Update(u *gameloop.Update) error {
	c.sum += c.step
	if u.Tick == c.stopAt {
		return gameloop.ErrStop
	}
	return nil
}

func (c *counter) Checksum() uint64 { return c.sum }

// record writes a recording of 100 ticks of a counter, with a key press, to a file and
// returns its path and bytes.
func record(t *testing.T) (string, []byte) {
	t.Helper()
	win := gameloop.NewHeadlessWindow(1, 1)
	loop, err := gameloop.New(gameloop.Config{Bench: true, Window: win})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, loop.Config().TickRate, &replay.RecordOptions{Name: "counter"})
	if err != nil {
		t.Fatal(err)
	}
	win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
	if err := loop.Run(context.Background(), rec.Game(&counter{step: 1, stopAt: 100})); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "counter.rec")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

func TestRun(t *testing.T) {
	path, data := record(t)
	// playWith replays into a counter whose first step is step: 1 is the recorded game.
	playWith := func(step uint64) func(context.Context, replay.Header, Playable, io.Writer) error {
		return func(ctx context.Context, _ replay.Header, rec Playable, w io.Writer) error {
			res, err := rec.Play(ctx, &counter{step: step}, nil)
			if err != nil {
				return err
			}
			return PrintResult(w, res)
		}
	}
	write := func(b []byte) string {
		p := filepath.Join(t.TempDir(), "x.rec")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		path     string
		step     uint64
		wantOut  string // a regexp
		wantErr  string // a regexp; "" for nil
		mismatch bool
	}{
		{"matched", path, 1, `^replay: 100 ticks, matched \(1 input, 100 checksums, in .*\)\n$`, "", false},
		{"another game", path, 2, `^replay: MISMATCH at tick 1 of 100: expected checksum 0000000000000002, got 0000000000000004 \(0 checksums matched before it\)\n$`,
			`did not match the recording at tick 1`, true},
		{"cut short", write(data[:len(data)-5]), 1, `^replay: \d+ ticks, matched as far as the recording goes, but it was cut short`,
			`cut short at byte \d+`, false},
		{"not a recording", write([]byte("hello, world, this is not a recording")), 1, `^$`, `x.rec: .*byte \d+`, false},
		{"no file", filepath.Join(t.TempDir(), "none.rec"), 1, `^$`, `^-replay: open .*no such file`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Run(t.Context(), tt.path, &out, playWith(tt.step))
			if !regexp.MustCompile(tt.wantOut).MatchString(out.String()) {
				t.Errorf("printed %q, want it to match %q", out.String(), tt.wantOut)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !regexp.MustCompile(tt.wantErr).MatchString(err.Error())):
				t.Errorf("error %v, want one matching %q", err, tt.wantErr)
			}
			if got := errors.Is(err, ErrMismatch); got != tt.mismatch {
				t.Errorf("errors.Is(err, ErrMismatch) = %v, want %v (err: %v)", got, tt.mismatch, err)
			}
		})
	}
}

// PrintResult counts every input the replay delivered, those after the last tick among them
// (a recording's inputs after its last tick used to be dropped from the count, and the game),
// and says "1 input", not "1 inputs".
func TestPrintResultInputs(t *testing.T) {
	for _, tt := range []struct {
		res  replay.Result
		want string
	}{
		{replay.Result{Recorded: 180, Ticks: 180, Inputs: 37, Trailing: 2, Checked: 180},
			"replay: 180 ticks, matched (37 inputs, 2 of them after the last tick, 180 checksums, in 0s)\n"},
		{replay.Result{Recorded: 5, Ticks: 5, Inputs: 1, Checked: 5}, "replay: 5 ticks, matched (1 input, 5 checksums, in 0s)\n"},
	} {
		var out bytes.Buffer
		if err := PrintResult(&out, &tt.res); err != nil || out.String() != tt.want {
			t.Errorf("PrintResult(%+v) printed %q, %v; want %q", tt.res, out.String(), err, tt.want)
		}
	}
}
