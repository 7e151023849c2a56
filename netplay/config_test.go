package netplay

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// TestConfigErrors: a bad setting is an error that names the field and the value.
func TestConfigErrors(t *testing.T) {
	network := netsim.NewNetwork(1)
	conn, err := network.Listen("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := network.Listen("b")
	if err != nil {
		t.Fatal(err)
	}
	other := b.LocalAddr()
	two := []Player{{Local: true}, {Addr: other}}
	for _, tc := range []struct {
		change func(*Config[testInput])
		want   string
	}{
		{func(c *Config[testInput]) { c.Players = two[:1] }, "Config.Players = 1"},
		{func(c *Config[testInput]) { c.Players = make([]Player, 9) }, "Config.Players = 9"},
		{func(c *Config[testInput]) { c.Players = []Player{{Local: true}, {}} }, "Config.Players[1].Addr"},
		{func(c *Config[testInput]) { c.Players = []Player{{Local: true, Addr: other}, {Addr: other}} }, "Config.Players[0].Addr"},
		{func(c *Config[testInput]) { c.Players = []Player{{Addr: other}, {Addr: other}} }, "no player is local"},
		{func(c *Config[testInput]) { c.Players = []Player{{Local: true}, {Local: true}} }, "every player is local"},
		{func(c *Config[testInput]) { c.Players = []Player{{Local: true}, {Addr: conn.LocalAddr()}} }, "Config.Players[1].Addr = a: the conn's own address"},
		{func(c *Config[testInput]) { c.Codec = nil }, "Config.Codec"},
		{func(c *Config[testInput]) { c.SparseSaving, c.Record = true, io.Discard }, "Config.SparseSaving"},
		{func(c *Config[testInput]) { c.Snapshots = true }, "Config.Snapshots = true: a relayed match's players"},
		{func(c *Config[testInput]) { c.InputDelay = -1 }, "Config.InputDelay = -1"},
		{func(c *Config[testInput]) { c.InputDelay = MaxInputDelay + 1 }, "Config.InputDelay = 31"},
		{func(c *Config[testInput]) { c.PredictionWindow = MaxPredictionWindow + 1 }, "Config.PredictionWindow = 61"},
		{func(c *Config[testInput]) { c.Lockstep, c.PredictionWindow = true, 4 }, "must be 0 with Lockstep"},
		{func(c *Config[testInput]) { c.TickRate = -60 }, "Config.TickRate = -60"},
		{func(c *Config[testInput]) { c.DisconnectTimeout = -time.Second }, "Config.DisconnectTimeout = -1s"},
		{func(c *Config[testInput]) { c.DisconnectNotice = 3 * time.Second }, "Config.DisconnectNotice = 3s"},
	} {
		cfg := Config[testInput]{Players: two, Codec: byteCodec{}}
		tc.change(&cfg)
		_, err := NewSession(conn, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v", tc.want, err)
		}
	}
	s, err := NewSession(conn, Config[testInput]{Players: two, Codec: byteCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Slots() != DefaultPredictionWindow+2 {
		t.Errorf("%d slots by default", s.Slots())
	}
	if err := s.AddLocalInput(1, 0); err == nil {
		t.Error("AddLocalInput took a remote player's input")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Advance(0); err != ErrClosed {
		t.Errorf("Advance after Close: %v", err)
	}
}

// TestRunSnapshots: Run carries out Snapshot and Restore requests with a Snapshotter, and says
// so of a game that is not one.
func TestRunSnapshots(t *testing.T) {
	g := &stateGame{}
	g.state = 7
	reqs := []Request[testInput]{{Kind: Save, Slot: 1}, {Kind: Snapshot, Tick: 5, Slot: 1}}
	if err := Run(reqs, Game[testInput](g)); err != nil {
		t.Fatal(err)
	}
	if string(reqs[1].Data) != "7" {
		t.Fatalf("Snapshot: %q", reqs[1].Data)
	}
	g.state = 0
	reqs = []Request[testInput]{{Kind: Restore, Tick: 5, Data: []byte("42")}}
	if err := Run(reqs, Game[testInput](g)); err != nil || g.state != 42 || reqs[0].Checksum != 42 {
		t.Fatalf("Restore: %v, state %d, checksum %d", err, g.state, reqs[0].Checksum)
	}
	reqs = []Request[testInput]{{Kind: Restore, Tick: 5, Data: []byte("x")}}
	if err := Run(reqs, Game[testInput](g)); err == nil || !strings.Contains(err.Error(), "restoring the state after tick 5") {
		t.Fatalf("Restore of bad data: %v", err)
	}
	plain := struct{ Game[testInput] }{g}
	if err := Run([]Request[testInput]{{Kind: Snapshot, Tick: 3}}, Game[testInput](plain)); err == nil || !strings.Contains(err.Error(), "not a Snapshotter") {
		t.Fatalf("Snapshot of a game that is not a Snapshotter: %v", err)
	}
}

// stateGame is a game of one number, encoded in decimal.
type stateGame struct {
	state uint64
	saved [4]uint64
}

func (g *stateGame) LocalInput(int) testInput                    { return 0 }
func (g *stateGame) Step(uint64, []PlayerInput[testInput]) error { return nil }
func (g *stateGame) Save(slot int) uint64                        { g.saved[slot] = g.state; return g.state }
func (g *stateGame) Load(slot int)                               { g.state = g.saved[slot] }
func (g *stateGame) AppendSnapshot(dst []byte, slot int) []byte {
	return strconv.AppendUint(dst, g.saved[slot], 10)
}
func (g *stateGame) LoadSnapshot(data []byte) (uint64, error) {
	v, err := strconv.ParseUint(string(data), 10, 64)
	if err != nil {
		return 0, err
	}
	g.state = v
	return v, nil
}
