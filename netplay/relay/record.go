package relay

import (
	"io"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/replay"
)

// RecordLagSeconds is how far behind its match a recording writes, in seconds of ticks: the
// players report the checksum of a tick once it is final at their end, a round trip or so
// after the relay confirms it.
const RecordLagSeconds = 2

// recording writes a match's confirmed inputs, as a netplay session's Config.Record does: each
// player's input of each tick as a player input record of its status (netplay.Confirmed, or
// netplay.Disconnected once dropped and before it joined) and the input, and the checksums players reported.
type recording struct {
	w       io.WriteCloser
	r       *replay.Recorder
	update  gameloop.Update
	data    []byte
	tickBuf []byte
	done    uint64            // the last tick written
	sums    map[uint64]uint64 // the checksums reported, of ticks not yet written
	desyncs uint64            // ticks two players reported different checksums of
	err     error
	lag     uint64
	players int
	size    int
}

// RecordName is the name in the header of a relay's recordings (Options.Record); their Meta is
// "match=" and the match's name.
const RecordName = "relay"

func newRecording(w io.WriteCloser, name string, cfg MatchConfig) (*recording, error) {
	r, err := replay.NewRecorder(w, cfg.TickRate, &replay.RecordOptions{Name: RecordName, Meta: []byte("match=" + name), PlayerInputs: true})
	if err != nil {
		return nil, err
	}
	return &recording{w: w, r: r, data: make([]byte, 1+cfg.InputSize), tickBuf: make([]byte, cfg.Players*cfg.InputSize),
		sums: map[uint64]uint64{}, lag: uint64(RecordLagSeconds * cfg.TickRate), players: cfg.Players, size: cfg.InputSize}, nil
}

// sum notes a player's checksum of tick, unless written already; it reports false if another
// player reported a different one.
func (rc *recording) sum(tick, sum uint64) bool {
	if tick <= rc.done {
		return true
	}
	if old, ok := rc.sums[tick]; ok {
		if old != sum {
			rc.desyncs++
			return false
		}
		return true
	}
	rc.sums[tick] = sum
	return true
}

// write writes the ticks of mt confirmed lag ticks ago or more (all of them with all), as far
// as the match keeps them.
func (rc *recording) write(mt *match, all bool) {
	if rc.err != nil {
		return
	}
	last := mt.auth.Confirmed()
	if !all {
		last -= min(last, rc.lag)
	}
	for t := max(rc.done+1, mt.auth.Oldest()); t <= last && t > 0; t++ {
		_, out, ok := mt.auth.Tick(t, rc.tickBuf)
		if !ok {
			break
		}
		for h := range rc.players {
			rc.data[0] = byte(netplay.Confirmed)
			copy(rc.data[1:], rc.tickBuf[h*rc.size:][:rc.size])
			if out.Has(h) { // dropped, or not joined yet
				rc.data[0] = byte(netplay.Disconnected)
				clear(rc.data[1:])
			}
			if rc.err = rc.r.PlayerInput(t, h, rc.data); rc.err != nil {
				return
			}
		}
		rc.update.Tick = t
		if rc.err = rc.r.Tick(&rc.update, nil); rc.err != nil {
			return
		}
		if sum, ok := rc.sums[t]; ok {
			delete(rc.sums, t)
			if rc.err = rc.r.Checksum(t, sum); rc.err != nil {
				return
			}
		}
		rc.done = t
	}
}

// close writes the rest and closes the recording and its writer.
func (rc *recording) close(mt *match) error {
	rc.write(mt, true)
	err := rc.err
	if cerr := rc.r.Close(); err == nil {
		err = cerr
	}
	if cerr := rc.w.Close(); err == nil {
		err = cerr
	}
	return err
}
