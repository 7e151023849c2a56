package netplay_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
)

// Buttons is a game's input: a fixed-size value, here a set of buttons.
type Buttons uint8

// ButtonsCodec encodes Buttons in one byte.
type ButtonsCodec struct{}

func (ButtonsCodec) Size() int                 { return 1 }
func (ButtonsCodec) Put(dst []byte, b Buttons) { dst[0] = byte(b) }
func (ButtonsCodec) Get(src []byte) Buttons    { return Buttons(src[0]) }

// State is all of a game's state: integers only, so that every machine computes the same.
type State struct {
	Tick uint64
	X    [2]int64
}

// Duel is a rollback-ready game: it steps its state with every player's input, and saves and
// loads it in slots.
type Duel struct {
	State
	Slots []State
	Local int // the local player's handle
	Keys  func() Buttons
}

func (g *Duel) LocalInput(handle int) Buttons { return g.Keys() }

func (g *Duel) Step(tick uint64, inputs []netplay.PlayerInput[Buttons]) error {
	g.Tick = tick
	for h, in := range inputs {
		if in.Input&1 != 0 {
			g.X[h]++
		}
		if in.Input&2 != 0 {
			g.X[h]--
		}
	}
	return nil
}

func (g *Duel) Save(slot int) (checksum uint64) {
	g.Slots[slot] = g.State
	return g.Sum()
}

// Sum is the state's checksum.
func (s State) Sum() uint64 { return s.Tick*31 + uint64(s.X[0])*1_000_003 + uint64(s.X[1]) }

func (g *Duel) Load(slot int) { g.State = g.Slots[slot] }

// Two players over UDP: each machine lists both players in the same order, its own as Local,
// and runs the game from its loop's fixed step. netplay.ListenUDP's socket and the low-power
// pacer cost the least CPU.
func ExampleNewLoopGame() {
	conn, err := netplay.ListenUDP("udp", &net.UDPAddr{Port: 7000})
	if err != nil {
		fmt.Println(err)
		return
	}
	other, err := net.ResolveUDPAddr("udp", "192.0.2.1:7000")
	if err != nil {
		fmt.Println(err)
		return
	}
	session, err := netplay.NewSession(conn, netplay.Config[Buttons]{
		Players: []netplay.Player{{Local: true}, {Addr: other}},
		Codec:   ButtonsCodec{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	loop, err := gameloop.New(gameloop.Config{TickRate: 60, LowPower: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	game := &Duel{Slots: make([]State, session.Slots()), Keys: func() Buttons { return 0 }}
	err = loop.Run(context.Background(), netplay.NewLoopGame(session, game, loop))
	fmt.Println(err)
}

// A UDPConn is a net.PacketConn: here two on 127.0.0.1 exchange a packet before a session
// would take them.
func ExampleListenUDP() {
	a, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	if _, err := a.WriteTo([]byte("hello"), b.LocalAddr()); err != nil {
		fmt.Println(err)
		return
	}
	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	n, from, err := b.ReadFrom(buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q from a: %v\n", buf[:n], from.String() == a.LocalAddr().String())
	// Output: "hello" from a: true
}

// Two sessions in one program over netsim's in-memory network, each carrying out its requests
// on its own copy of the game, tick by tick on simulated time.
func ExampleNewSession() {
	network := netsim.NewNetwork(1)
	conns := make([]*netsim.Conn, 2)
	for i := range conns {
		conns[i], _ = network.Listen(fmt.Sprintf("peer%d", i))
	}
	sessions := make([]*netplay.Session[Buttons], 2)
	games := make([]*Duel, 2)
	for i := range sessions {
		players := []netplay.Player{{Local: true}, {Local: true}}
		players[1-i] = netplay.Player{Addr: conns[1-i].LocalAddr()}
		s, err := netplay.NewSession(conns[i], netplay.Config[Buttons]{Players: players, Codec: ButtonsCodec{}})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer s.Close()
		sessions[i] = s
		games[i] = &Duel{Slots: make([]State, s.Slots())}
	}
	var now time.Duration
	for sessions[0].Tick() < 120 || sessions[1].Tick() < 120 {
		now += time.Second / 60
		network.Advance(time.Second / 60)
		for i, s := range sessions {
			s.AddLocalInput(i, Buttons(1+i)) // player 0 holds right, player 1 left
			reqs, err := s.Advance(now)
			if err != nil {
				continue // not synchronized yet, or too far ahead: skip the tick
			}
			if err := netplay.Run(reqs, netplay.Game[Buttons](games[i])); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	for i, s := range sessions {
		fmt.Printf("peer %d at tick %d, x %v, %d rollbacks\n", i, s.Tick(), games[i].X, s.Stats().Rollbacks)
	}
	// Output:
	// peer 0 at tick 120, x [120 -120], 1 rollbacks
	// peer 1 at tick 120, x [120 -120], 0 rollbacks
}

// A sync test runs a game on one machine, rolling back every tick, to catch what would make
// two machines disagree: here a field that Save forgets.
func ExampleNewSyncTest() {
	test, err := netplay.NewSyncTest(netplay.SyncTestConfig[Buttons]{Players: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	game := &leaky{Duel: Duel{Slots: make([]State, test.Slots())}}
	for range 600 {
		test.AddLocalInput(0, 1)
		reqs, err := test.Advance()
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := netplay.Run(reqs, netplay.Game[Buttons](game)); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// netplay: sync test: the state after tick 30 differs when run again from tick 28 (checksum 0x0000000001c9c77d, then 0x0000000001c9c77e): the game is not deterministic, or Save and Load miss part of its state
}

// leaky is a Duel with a power-up counter that Save forgets.
type leaky struct {
	Duel
	powerUps int64
}

func (g *leaky) Step(tick uint64, inputs []netplay.PlayerInput[Buttons]) error {
	if tick >= 30 {
		g.powerUps++
		g.X[1] += g.powerUps
	}
	return g.Duel.Step(tick, inputs)
}

// A spectator of a two-player game: the host (player 0's session) accepts one, which runs the
// game behind the players from the inputs the host sends it.
func ExampleNewSpectator() {
	network := netsim.NewNetwork(1)
	conns := make([]*netsim.Conn, 3)
	for i := range conns {
		conns[i], _ = network.Listen(fmt.Sprintf("peer%d", i))
	}
	sessions := make([]*netplay.Session[Buttons], 3)
	for i := range 2 {
		players := []netplay.Player{{Local: true}, {Local: true}}
		players[1-i] = netplay.Player{Addr: conns[1-i].LocalAddr()}
		s, err := netplay.NewSession(conns[i], netplay.Config[Buttons]{Players: players, Codec: ButtonsCodec{}, Spectators: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		sessions[i] = s
	}
	conn, hostAddr := conns[2], conns[0].LocalAddr()
	spectator, err := netplay.NewSpectator(conn, hostAddr, 2, netplay.Config[Buttons]{Codec: ButtonsCodec{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	sessions[2] = spectator
	games := make([]*Duel, 3)
	for i, s := range sessions {
		defer s.Close()
		games[i] = &Duel{Slots: make([]State, s.Slots())}
	}
	var now time.Duration
	for spectator.Tick() < 120 {
		now += time.Second / 60
		network.Advance(time.Second / 60)
		for i, s := range sessions {
			if i < 2 {
				s.AddLocalInput(i, Buttons(1+i))
			}
			reqs, err := s.Advance(now)
			if err != nil {
				continue // not synchronized yet, or waiting for inputs: skip the tick
			}
			if err := netplay.Run(reqs, netplay.Game[Buttons](games[i])); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	sum, _ := spectator.Checksum(120)
	host, _ := sessions[0].Checksum(120)
	fmt.Printf("the spectator at tick %d, x %v; checksum of tick 120 %#x, the host's %#x\n", spectator.Tick(), games[2].X, sum, host)
	// Output:
	// the spectator at tick 120, x [120 -120]; checksum of tick 120 0x7271d78, the host's 0x7271d78
}

// SharedDuel is Duel with its state encoded (netplay.Snapshotter), for a relay that keeps state
// snapshots: a player joining late or coming back starts from another's state.
type SharedDuel struct{ Duel }

func (g *SharedDuel) AppendSnapshot(dst []byte, slot int) []byte {
	s := g.Slots[slot]
	return fmt.Appendf(dst, "%d %d %d", s.Tick, s.X[0], s.X[1])
}

func (g *SharedDuel) LoadSnapshot(data []byte) (checksum uint64, err error) {
	var s State
	if _, err := fmt.Sscanf(string(data), "%d %d %d", &s.Tick, &s.X[0], &s.X[1]); err != nil {
		return 0, err
	}
	g.State = s
	return s.Sum(), nil // what Save gives for the state loaded
}

// A game whose state encodes shares it through a relay with Config.Snapshots: Run carries out
// the Snapshot requests (the state saved, encoded) and Restore requests (a state loaded, its
// checksum checked against the sharer's) with its Snapshotter methods.
func ExampleSnapshotter() {
	a := &SharedDuel{Duel{Slots: make([]State, 4)}}
	a.State = State{Tick: 600, X: [2]int64{3, -2}}
	reqs := []netplay.Request[Buttons]{{Kind: netplay.Save, Tick: 600, Slot: 1}, {Kind: netplay.Snapshot, Tick: 600, Slot: 1}}
	if err := netplay.Run(reqs, netplay.Game[Buttons](a)); err != nil {
		panic(err)
	}
	fmt.Printf("shared: %q, checksum %d\n", reqs[1].Data, reqs[0].Checksum)

	b := &SharedDuel{Duel{Slots: make([]State, 4)}}
	restore := []netplay.Request[Buttons]{{Kind: netplay.Restore, Tick: 600, Data: reqs[1].Data}}
	if err := netplay.Run(restore, netplay.Game[Buttons](b)); err != nil {
		panic(err)
	}
	fmt.Printf("loaded: tick %d, x %v, checksum %d\n", b.Tick, b.X, restore[0].Checksum)
	// Output:
	// shared: "600 3 -2", checksum 3018607
	// loaded: tick 600, x [3 -2], checksum 3018607
}
