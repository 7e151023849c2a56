package netplay

import "fmt"

// testInput is the test game's input: a set of buttons.
type testInput uint8

// byteCodec encodes a testInput in one byte.
type byteCodec struct{}

func (byteCodec) Size() int                    { return 1 }
func (byteCodec) Put(dst []byte, in testInput) { dst[0] = byte(in) }
func (byteCodec) Get(src []byte) testInput     { return testInput(src[0]) }

// testState is the test game's whole state: a small integer simulation, deterministic by
// construction.
type testState struct {
	tick uint64
	pos  [MaxPlayers][2]int32
	vel  [MaxPlayers][2]int32
	rng  uint64
	// gone counts the ticks each player ran disconnected.
	gone [MaxPlayers]int32
}

// testGame is a rollback-ready game for the tests: it keeps its states in slots, and logs the
// inputs and checksum of every tick as last run, for the tests to compare peers.
type testGame struct {
	st      testState
	slots   []testState
	players int
	seed    uint64
	session interface{ Tick() uint64 }
	// log holds the inputs of every tick as last run (by tick-1, then handle); sums the
	// checksum after it.
	log  []PlayerInput[testInput]
	sums []uint64
	// plant, if set, changes the state at that tick on this peer only: a desync.
	plant uint64
	// steps counts the updates run, rollbacks included.
	steps int
}

func newTestGame(players, slots int, seed uint64, ticks int) *testGame {
	g := &testGame{slots: make([]testState, slots), players: players, seed: seed,
		log: make([]PlayerInput[testInput], 0, ticks*players), sums: make([]uint64, 0, ticks)}
	g.st.rng = 0x9e3779b97f4a7c15
	return g
}

// bot returns the input a seeded bot gives for player h at tick: buttons held for a while,
// as a player holds them, so that most predictions are right.
func bot(seed uint64, h int, tick uint64) testInput {
	x := seed ^ uint64(h+1)*0x9e3779b97f4a7c15 ^ (tick/17)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return testInput(x & 0x0f)
}

func (g *testGame) LocalInput(h int) testInput { return bot(g.seed, h, g.session.Tick()+1) }

func (g *testGame) Step(tick uint64, inputs []PlayerInput[testInput]) error {
	if tick != g.st.tick+1 {
		return fmt.Errorf("test game: tick %d after tick %d", tick, g.st.tick)
	}
	if len(inputs) != g.players {
		return fmt.Errorf("test game: %d inputs for %d players", len(inputs), g.players)
	}
	g.steps++
	st := &g.st
	st.tick = tick
	for h, in := range inputs {
		if in.Status == Disconnected {
			st.gone[h]++
			continue
		}
		b := in.Input
		if b&1 != 0 {
			st.vel[h][0]++
		}
		if b&2 != 0 {
			st.vel[h][0]--
		}
		if b&4 != 0 {
			st.vel[h][1]++
		}
		if b&8 != 0 {
			st.vel[h][1]--
		}
		st.pos[h][0] += st.vel[h][0]
		st.pos[h][1] += st.vel[h][1]
		st.rng = st.rng*6364136223846793005 + uint64(b) + 1442695040888963407
	}
	if g.plant != 0 && tick == g.plant {
		st.pos[0][0] += 1000
	}
	// Record the tick as last run.
	for int(tick) > len(g.sums) {
		g.sums = append(g.sums, 0)
		for range g.players {
			g.log = append(g.log, PlayerInput[testInput]{})
		}
	}
	copy(g.log[int(tick-1)*g.players:], inputs)
	g.sums[tick-1] = g.checksum() // as Save would; sparse saving does not save every tick
	return nil
}

func (g *testGame) checksum() uint64 {
	h := uint64(14695981039346656037) // FNV-1a, a byte at a time
	put := func(v uint64) {
		for i := range 8 {
			h ^= uint64(byte(v >> (8 * i)))
			h *= 1099511628211
		}
	}
	put(g.st.tick)
	put(g.st.rng)
	for p := range g.players {
		put(uint64(g.st.pos[p][0])<<32 | uint64(uint32(g.st.pos[p][1])))
		put(uint64(g.st.vel[p][0])<<32 | uint64(uint32(g.st.vel[p][1])))
		put(uint64(g.st.gone[p]))
	}
	return h
}

func (g *testGame) Save(slot int) uint64 {
	g.slots[slot] = g.st
	sum := g.checksum()
	if g.st.tick > 0 {
		g.sums[g.st.tick-1] = sum
	}
	return sum
}

func (g *testGame) Load(slot int) { g.st = g.slots[slot] }
