package main

// The duel over netsim's in-memory network on simulated time: minutes of play under each of
// its presets in a second or two, deterministically, with the command's own game (its saves,
// loads and final checksums) in netplay sessions.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netsim"
	"github.com/gameloop-go/gameloop/replay"
)

// simPeer is one player's machine in the simulation.
type simPeer struct {
	session *netplay.Session[duel.Input]
	game    *duelnet.Game
	rec     bytes.Buffer
	start   time.Duration // when its loop starts, on the network's time
	next    time.Duration // when its next tick is due
}

// Minutes at 60 Hz under every preset, the second peer starting half a second late: both
// peers' recordings (every confirmed tick's inputs and checksum) agree tick for tick, and each
// replays matched. One minute by default; GAMELOOP_DUEL_MINUTES=10 plays the ten that
// docs/duel.md quotes, and then checks that its table says what this run measured: the
// figures are the same every run (simulated time, seeded), so a change to netplay or the game
// that moves them fails here until the table is regenerated.
func TestSimulatedPresets(t *testing.T) {
	minutes := 1
	if s := os.Getenv("GAMELOOP_DUEL_MINUTES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 24*60 {
			t.Fatalf("GAMELOOP_DUEL_MINUTES=%q: want a number of minutes", s)
		}
		minutes = n
	}
	var table map[string]string
	if minutes == docMinutes {
		table = docTable(t)
	}
	for _, preset := range netsim.PresetNames() {
		t.Run(preset, func(t *testing.T) {
			t.Parallel()
			cond, err := netsim.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			ticks := uint64(minutes * 60 * duel.TickRate)
			peers, figures := simulate(t, cond, ticks, 500*time.Millisecond)
			recs := [2]*replay.Recording{}
			for i, p := range peers {
				rec, err := replay.Decode(bytes.NewReader(p.rec.Bytes()))
				if err != nil {
					t.Fatalf("peer %d's recording: %v", i, err)
				}
				recs[i] = rec
				res, err := rec.Play(t.Context(), netplay.NewReplayGame(duelnet.NewGame(1, 1, nil), duel.Codec{}, 2), nil)
				if err != nil || !res.Matched() {
					t.Fatalf("peer %d's recording replayed: %v, %v", i, res, err)
				}
			}
			compareRecordings(t, recs, ticks)
			row := figures.row(preset)
			t.Logf("%d ticks: %s", ticks, row)
			if table == nil {
				return
			}
			if why := figuresDiffer(); why != "" {
				t.Logf("not compared with %s: %s", docPath, why)
				return
			}
			if doc, ok := table[preset]; !ok {
				t.Errorf("%s's table of TestSimulatedPresets has no row for %s; this run measured\n%s", docPath, preset, row)
			} else if doc != row {
				t.Errorf("%s's table of TestSimulatedPresets says\n%s\nthis run measured\n%s", docPath, doc, row)
			}
		})
	}
}

// docPath is the document whose table TestSimulatedPresets checks, with docCommand, the
// command there that made it, playing docMinutes minutes.
const (
	docPath    = "../../docs/duel.md"
	docCommand = "GAMELOOP_DUEL_MINUTES=10 go test -count=1 -v -run TestSimulatedPresets ./cmd/duel"
	docMinutes = 10
)

// docTable returns the rows of the table after docCommand in docPath, by preset, each with its
// spaces squeezed.
func docTable(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), docCommand)
	if !ok {
		t.Fatalf("%s does not show %s", docPath, docCommand)
	}
	rows := map[string]string{}
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		switch {
		case strings.HasPrefix(line, "|"):
			inTable = true
			if cells := strings.Split(line, "|"); len(cells) > 2 {
				rows[strings.TrimSpace(cells[1])] = line
			}
		case inTable:
			return rows
		}
	}
	return rows
}

// figuresDiffer says why this build's figures may differ from the table's, made on amd64 at
// its default GOAMD64=v1, or returns "": where Go fuses x*y + z (arm64, GOAMD64=v3), floats
// such as the time sync's may round otherwise, and so play otherwise.
func figuresDiffer() string {
	if runtime.GOARCH != "amd64" {
		return "built for " + runtime.GOARCH + ", where floats may fuse"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "GOAMD64" && s.Value != "v1" && s.Value != "v2" {
				return "built with GOAMD64=" + s.Value + ", where floats may fuse"
			}
		}
	}
	return ""
}

// simFigures are the figures of both peers' sessions that docs/duel.md's table shows.
type simFigures struct {
	rollbacks, skipped [2]uint64
	deepest            int
	ping               [2]time.Duration
	ahead              [2]float64
}

// row returns f as a row of docs/duel.md's table, as docTable returns it.
func (f simFigures) row(preset string) string {
	ahead := func(x float64) string {
		s := fmt.Sprintf("%.1f", x)
		if s == "-0.0" {
			s = "0.0"
		}
		return s
	}
	return fmt.Sprintf("| %s | %s, %s | %d | %s, %s | %d, %d ms | %s, %s |", preset,
		thousands(f.rollbacks[0]), thousands(f.rollbacks[1]), f.deepest,
		thousands(f.skipped[0]), thousands(f.skipped[1]),
		f.ping[0].Round(time.Millisecond).Milliseconds(), f.ping[1].Round(time.Millisecond).Milliseconds(),
		ahead(f.ahead[0]), ahead(f.ahead[1]))
}

// thousands writes n with a comma between thousands, as the documents do: 17,201.
func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// simulate plays a game between two bots on a network with conditions c both ways, the
// second peer starting late, until both have tick ticks final, and returns the peers and a
// summary of their sessions' figures.
func simulate(t *testing.T, c netsim.Conditions, ticks uint64, late time.Duration) ([2]*simPeer, simFigures) {
	t.Helper()
	network := netsim.NewNetwork(1)
	names := [2]string{"left", "right"}
	network.SetConditions(names[0], names[1], c)
	network.SetConditions(names[1], names[0], c)
	var conns [2]*netsim.Conn
	for i, name := range names {
		conn, err := network.Listen(name)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
	}
	var peers [2]*simPeer
	for i := range peers {
		p := &simPeer{start: time.Duration(i) * late}
		p.next = p.start
		players := make([]netplay.Player, 2)
		players[i] = netplay.Player{Local: true}
		players[1-i] = netplay.Player{Addr: conns[1-i].LocalAddr()}
		s, err := netplay.NewSession(conns[i], netplay.Config[duel.Input]{
			Players: players, Codec: duel.Codec{}, InputDelay: defaultDelay,
			Record: &p.rec, RecordName: duelnet.RecordName, RecordMeta: duelnet.StartMeta(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		bot := duel.NewBot(uint64(i + 1))
		p.session, p.game = s, duelnet.NewGame(1, s.Slots(), &bot)
		peers[i] = p
	}
	const step = time.Second / duel.TickRate
	// Time runs until both peers have the tick final, and a little longer for what is in
	// flight, within a bound that a stuck session cannot pass.
	limit := time.Duration(ticks)*step*2 + time.Minute
	for network.Now() < limit {
		done := true
		for i, p := range peers {
			if st := p.session.Stats(); min(st.Confirmed, st.Tick) < ticks+duelnet.SettleTicks {
				done = false
			}
			if network.Now() < p.next {
				continue
			}
			// Time sync, as the loop applies it: a peer ahead ticks a little slower.
			p.next += time.Duration(float64(step) / p.session.TimeScale())
			if err := p.session.AddLocalInput(i, p.game.LocalInput(i)); err != nil {
				t.Fatal(err)
			}
			reqs, err := p.session.Advance(network.Now())
			switch {
			case errors.Is(err, netplay.ErrNotSynchronized), errors.Is(err, netplay.ErrPredictionThreshold):
			case err != nil:
				t.Fatalf("peer %d: %v", i, err)
			default:
				if err := netplay.Run(reqs, p.game); err != nil {
					t.Fatalf("peer %d: %v", i, err)
				}
			}
		}
		if done {
			break
		}
		network.Advance(time.Millisecond)
	}
	var figures simFigures
	for i, p := range peers {
		st := p.session.Stats()
		ps := p.session.PeerStats(1 - i)
		if min(st.Confirmed, st.Tick) < ticks {
			t.Fatalf("peer %d: tick %d final after %v of simulated time, want %d: %+v", i, min(st.Confirmed, st.Tick), network.Now(), ticks, st)
		}
		if err := p.session.Close(); err != nil {
			t.Fatal(err)
		}
		figures.rollbacks[i], figures.skipped[i] = st.Rollbacks, st.Skipped
		figures.deepest = max(figures.deepest, st.MaxRollback)
		figures.ping[i], figures.ahead[i] = ps.Ping, ps.TicksAhead
	}
	return peers, figures
}

// compareRecordings checks that two peers recorded the same checksum for every tick up to
// ticks, and the same inputs.
func compareRecordings(t *testing.T, recs [2]*replay.Recording, ticks uint64) {
	t.Helper()
	sums := [2]map[uint64]uint64{{}, {}}
	for i, rec := range recs {
		for _, c := range rec.Checksums {
			sums[i][c.Tick] = c.Sum
		}
	}
	for tick := uint64(1); tick <= ticks; tick++ {
		a, okA := sums[0][tick]
		b, okB := sums[1][tick]
		if !okA || !okB || a != b {
			t.Fatalf("tick %d: checksums %016x (recorded %v) and %016x (recorded %v)", tick, a, okA, b, okB)
		}
	}
	inputs := func(rec *replay.Recording) string {
		var b bytes.Buffer
		for _, in := range rec.PlayerInputs {
			if in.Tick <= ticks {
				fmt.Fprintf(&b, "%d/%d/%x ", in.Tick, in.Player, in.Data)
			}
		}
		return b.String()
	}
	if inputs(recs[0]) != inputs(recs[1]) {
		t.Fatalf("the peers recorded different inputs up to tick %d", ticks)
	}
}
