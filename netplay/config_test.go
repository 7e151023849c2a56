package netplay

import (
	"io"
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
