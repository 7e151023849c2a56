package netplay

import (
	"fmt"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// wideInput is a 3-byte input, as a game's buttons and a stick might be.
type wideInput [3]byte

type wideCodec struct{}

func (wideCodec) Size() int                    { return 3 }
func (wideCodec) Put(dst []byte, in wideInput) { copy(dst, in[:]) }
func (wideCodec) Get(src []byte) wideInput     { return wideInput(src) }

// wideGame is a game of wide inputs that folds them into a checksum.
type wideGame struct {
	sum   uint64
	slots []uint64
}

func (g *wideGame) LocalInput(int) wideInput { return wideInput{} }
func (g *wideGame) Step(tick uint64, inputs []PlayerInput[wideInput]) error {
	for _, in := range inputs {
		g.sum = g.sum*31 + uint64(in.Input[0]) + uint64(in.Input[1])<<8 + uint64(in.Input[2])<<16
	}
	return nil
}
func (g *wideGame) Save(slot int) uint64 { g.slots[slot] = g.sum; return g.sum }
func (g *wideGame) Load(slot int)        { g.sum = g.slots[slot] }

// wideBandwidth plays seconds of a game at 60 Hz between two peers under preset, each
// changing its 3-byte input every `every` ticks, and returns what peer 0 sends a second
// (payload) and its packets a second, from the moment both run.
func wideBandwidth(t testing.TB, preset string, every, seconds int) (bytesPerSecond, packetsPerSecond float64) {
	net := netsim.NewNetwork(11)
	cond, err := netsim.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	conns := make([]*netsim.Conn, 2)
	for i := range conns {
		if conns[i], err = net.Listen(fmt.Sprint("peer", i)); err != nil {
			t.Fatal(err)
		}
	}
	net.SetConditions("peer0", "peer1", cond)
	net.SetConditions("peer1", "peer0", cond)
	var sessions [2]*Session[wideInput]
	var games [2]*wideGame
	for h := range sessions {
		players := make([]Player, 2)
		players[h] = Player{Local: true}
		players[1-h] = Player{Addr: conns[1-h].LocalAddr()}
		s, err := NewSession(conns[h], Config[wideInput]{Players: players, Codec: wideCodec{}, Rand: &seqReader{x: uint64(h) + 5}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions[h], games[h] = s, &wideGame{slots: make([]uint64, s.Slots())}
	}
	var start time.Duration
	var startStats Stats
	end := time.Duration(seconds) * time.Second
	for ms := time.Duration(0); ; ms += time.Millisecond {
		net.Advance(time.Millisecond)
		now := net.Now()
		if start == 0 && sessions[0].running && sessions[1].running {
			start, startStats = now, sessions[0].Stats()
			end += now
		}
		if start != 0 && now >= end {
			break
		}
		if ms%(50*time.Millisecond/3) >= time.Millisecond { // a tick every 16.7 ms
			sessions[0].Poll(now)
			sessions[1].Poll(now)
			continue
		}
		for h, s := range sessions {
			tick := s.Tick() + 1
			v := byte(tick / uint64(every))
			_ = s.AddLocalInput(h, wideInput{v, v * 7, v ^ 0x5a})
			reqs, err := s.Advance(now)
			if err == nil {
				err = Run(reqs, Game[wideInput](games[h]))
			}
			if err != nil && err != ErrPredictionThreshold && err != ErrNotSynchronized {
				t.Fatal(err)
			}
		}
	}
	st := sessions[0].Stats()
	secs := (end - start).Seconds()
	return float64(st.BytesSent-startStats.BytesSent) / secs, float64(st.PacketsSent-startStats.PacketsSent) / secs
}

// TestBandwidthInputsChanging: between two players under poor, a 3-byte input that changes
// every tick costs under 3 KB/s each way (it cost 3,682 B/s). With -v, the bytes a second
// each way under none, poor and terrible, for inputs changing every tick, every 4, every 16
// and never.
func TestBandwidthInputsChanging(t *testing.T) {
	t.Logf("%-9s %9s %9s %9s %9s  (B/s each way, 3-byte input changing every ...)", "preset", "tick", "4 ticks", "16 ticks", "never")
	for _, preset := range []string{"none", "poor", "terrible"} {
		var row [4]float64
		for i, every := range []int{1, 4, 16, 1 << 30} {
			row[i], _ = wideBandwidth(t, preset, every, 30)
		}
		t.Logf("%-9s %9.0f %9.0f %9.0f %9.0f", preset, row[0], row[1], row[2], row[3])
		if preset == "poor" && row[0] >= 3000 {
			t.Errorf("poor, input changing every tick: %.0f B/s each way, want under 3,000", row[0])
		}
	}
}
