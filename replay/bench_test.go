package replay_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// BenchmarkReplayTenMinutes replays ten minutes of bounce at 60 ticks per second (36,000 ticks,
// about 600 inputs, a checksum after every tick) in bench mode: decoding, the loop, the
// simulation and the checks. The figure to read is s/replay, which must stay well under 1.
func BenchmarkReplayTenMinutes(b *testing.B) {
	data, _ := record(b, session{cfg: gameloop.Config{MaxFPS: 60}, ticks: 36_000, inputs: 600, seed: 1})
	for b.Loop() {
		res, err := replay.Play(context.Background(), bytes.NewReader(data), newBounce(), nil)
		if err != nil || !res.Matched() || res.Checked != 36_000 {
			b.Fatalf("%v, %v", res, err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/replay")
	b.ReportMetric(float64(len(data)), "bytes/recording")
}

// BenchmarkRecordTenMinutes plays ten minutes of bounce at 60 ticks per second in bench mode and
// records them, with a checksum after every tick.
func BenchmarkRecordTenMinutes(b *testing.B) {
	for b.Loop() {
		record(b, session{cfg: gameloop.Config{Bench: true}, ticks: 36_000, inputs: 600, seed: 1})
	}
}

// BenchmarkDecodeTenMinutes decodes a ten-minute recording.
func BenchmarkDecodeTenMinutes(b *testing.B) {
	data, _ := record(b, session{cfg: gameloop.Config{MaxFPS: 60}, ticks: 36_000, inputs: 600, seed: 1})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := replay.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
