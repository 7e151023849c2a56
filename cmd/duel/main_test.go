package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/replay"
)

// Bad flags are refused before anything starts, with exit status 2 and one line that names
// the flag; -h prints the flags and exits 0.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // in the one line printed
	}{
		{nil, "give -listen ADDR or -connect ADDR"},
		{[]string{"-listen", ":0", "-connect", "127.0.0.1:1"}, "one of them"},
		{[]string{"-listen", ":0", "-delay", "31"}, "-delay 31: must be 0 to 30"},
		{[]string{"-listen", ":0", "-delay", "-1"}, "-delay -1"},
		{[]string{"-listen", ":0", "-window", "61"}, "-window 61"},
		{[]string{"-listen", ":0", "-headless"}, "-headless needs -ticks"},
		{[]string{"-headless", "-ticks", "5", "-synctest"}, "-headless plays over the network"},
		{[]string{"-gui", "-headless", "-listen", ":0", "-ticks", "5"}, "-gui and -headless: one of them"},
		{[]string{"-gui", "-replay", "x.rec"}, "-gui plays over the network"},
		{[]string{"-gui", "-listen", ":0"}, "built without its window; build it with -tags ebiten"},
		{[]string{"-synctest", "-ticks", "99999999999"}, "-ticks 99999999999: at most"},
		{[]string{"-replay", "x.rec", "-record", "y.rec"}, "-record records a game played over the network"},
		{[]string{"-listen", ":0", "-bot", "x"}, `invalid value "x" for flag -bot`},
		{[]string{"-nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"-listen", ":0", "extra"}, "unexpected arguments"},
		{[]string{"-connect", ":0"}, "-connect :0: port 0"},
		{[]string{"-connect", "127.0.0.1:0"}, "-connect 127.0.0.1:0: port 0"},
		{[]string{"-connect", "127.0.0.1"}, "-connect 127.0.0.1: missing port"},
		{[]string{"-connect", ":99999"}, "-connect :99999"},
		{[]string{"-spectate", ":0"}, "-spectate :0: port 0"},
		{[]string{"-spectate", "127.0.0.1"}, "-spectate 127.0.0.1: missing port"},
		{[]string{"-spectate", ":7000", "-listen", ":0"}, "one of them"},
		{[]string{"-spectate", ":7000", "-bot", "1"}, "-bot is for a player: a spectator (-spectate) plays no paddle"},
		{[]string{"-spectate", ":7000", "-delay", "2"}, "-delay is for a player"},
		{[]string{"-spectate", ":7000", "-window", "8"}, "-window is for a player"},
		{[]string{"-spectate", ":7000", "-spectators", "1"}, "-spectators is for the player who listens"},
		{[]string{"-connect", ":7000", "-spectators", "1"}, "-spectators is for the player who listens"},
		{[]string{"-listen", ":0", "-spectators", "17"}, "-spectators 17: must be 0 (none) to 16"},
		{[]string{"-listen", ":0", "-spectators", "-1"}, "-spectators -1"},
		{[]string{"-spectate", ":7000", "-headless"}, "-headless needs -ticks"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws"}, "-lobby needs -room NAME"},
		{[]string{"-room", "duel"}, "-room is a room at a lobby: give -lobby URL too"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-listen", ":0"}, "-lobby meets the other player at a lobby: not with -listen, -connect or -spectate"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-connect", ":7000"}, "not with -listen, -connect or -spectate"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-spectate", ":7000"}, "not with -listen, -connect or -spectate"},
		{[]string{"-lobby", "http://127.0.0.1:8090/ws", "-room", "duel"}, "not a WebSocket URL"},
		{[]string{"-lobby", "127.0.0.1:8090", "-room", "duel"}, "not a WebSocket URL"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", strings.Repeat("r", 65)}, "-room: a name of 65 bytes, at most 64"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "a\tb"}, "which a lobby refuses"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-spectators", "1"}, "-spectators is for the player who listens"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-headless"}, "-headless needs -ticks"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-replay", "x.rec"}, "one of them"},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-netsim", "bad"}, `-netsim "bad": no such preset; netsim's are none, poor, terrible, mobile, intercontinental`},
		{[]string{"-lobby", "ws://127.0.0.1:8090/ws", "-room", "duel", "-netsim", ""}, `-netsim "": no such preset`},
		{[]string{"-listen", ":0", "-netsim", "poor"}, "-netsim is for -lobby, over WebRTC; over UDP, run cmd/netsim between the players"},
		{[]string{"-connect", ":7000", "-netsim", "bad"}, "-netsim is for -lobby"},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(tt.args, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || stdout.Len() > 0 {
			t.Errorf("duel %q: exit status %d, stdout %q, stderr %q; want %d and %q", tt.args, code, stdout.String(), stderr.String(), exitUsage, tt.want)
		}
		if strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("duel %q: %d lines on stderr, want one: %q", tt.args, strings.Count(stderr.String(), "\n"), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-listen address") {
		t.Errorf("duel -h: exit status %d, stderr %q; want 0 and the flags", code, stderr.String())
	}
}

// The game passes netplay's sync test: every tick played again two ticks later from a loaded
// state gives the same checksum, with and without an input delay.
func TestSyncTest(t *testing.T) {
	for _, args := range [][]string{
		{"-synctest"},
		{"-synctest", "-ticks", "3000", "-delay", "0", "-bot", "7", "-seed", "3"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(args, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "synctest: ") {
			t.Errorf("duel %q: exit status %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
		t.Logf("duel %s: %s", strings.Join(args, " "), stdout.String())
	}
}

// The sync test is not vacuous: a game whose Load forgets part of the state (the score), as a
// game that saved too little would, fails it at the first tick played again after a point
// was scored, with both checksums.
func TestSyncTestCatchesForgetfulLoad(t *testing.T) {
	g := &forgetful{Game: duelnet.NewGame(1, 1, nil)}
	opts := options{ticks: 3000, delay: 2}
	err := syncTest(context.Background(), opts, g, &g.State, g.Resize)
	var syncErr *netplay.SyncError
	if !errors.As(err, &syncErr) {
		t.Fatalf("syncTest of a game that forgets the score on Load: %v, want a *netplay.SyncError", err)
	}
	t.Logf("%v", err)
	if syncErr.First == syncErr.Again || syncErr.Tick == 0 {
		t.Errorf("%+v: want the tick and two different checksums", syncErr)
	}
}

// forgetful is the game with a Load that keeps the score it had, rather than the saved one.
type forgetful struct{ *duelnet.Game }

func (f *forgetful) Load(slot int) {
	score := f.State.Score
	f.Game.Load(slot)
	f.State.Score = score
}

// A recording whose checksum of one tick was changed replays to a mismatch at that tick: exit
// status 1 and the tick named. Recordings of other games, or damaged ones, are refused.
func TestReplayMismatch(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of 2 seconds")
	}
	dir := t.TempDir()
	rec := playShort(t, dir, "1", "1")
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	const tick = 77
	for i := range decoded.Checksums {
		if decoded.Checksums[i].Tick == tick {
			decoded.Checksums[i].Sum ^= 1
		}
	}
	tampered := filepath.Join(dir, "tampered.rec")
	var buf bytes.Buffer
	if err := decoded.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tampered, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	notDuel := filepath.Join(dir, "bounce.rec")
	decoded.Name, decoded.Meta = "bounce", []byte("bounce-start/1 seed=1")
	buf.Reset()
	if err := decoded.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notDuel, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.rec")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{tampered, `MISMATCH at tick 77 of \d+`},
		{notDuel, `not a recording of duel`},
		{cut, `cut short`},
		{filepath.Join(dir, "missing.rec"), `no such file`},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain([]string{"-replay", tt.path}, &stdout, &stderr)
		if out := stdout.String() + stderr.String(); code != exitError || !regexp.MustCompile(tt.want).MatchString(out) {
			t.Errorf("duel -replay %s: exit status %d, output %q; want %d and %q", filepath.Base(tt.path), code, out, exitError, tt.want)
		}
	}
}

// playShort plays a headless game of 120 ticks between two peers over loopback UDP, the
// listener's game seeded with seedA and the other's with seedB, and returns the listener's
// recording.
func playShort(t *testing.T, dir, seedA, seedB string) string {
	t.Helper()
	recA := filepath.Join(dir, "a.rec")
	a := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", "120", "-bot", "1", "-seed", seedA, "-record", recA)
	addr := a.waitFor(waitingRE, true, time.Minute)
	b := start(t, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", "120", "-bot", "2", "-seed", seedB)
	for _, p := range []*process{a, b} {
		p.wait(time.Minute)
	}
	return recA
}

// Two peers whose games differ (a different seed each: a planted desync) both report the first
// confirmed tick whose checksums differ, with both checksums, and stop there, exit 1, printing
// no checksum of the tick they were asked for; each keeps a recording that replays matched, to
// the checksum it reported as its own.
func TestDesyncReported(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game of a second or two")
	}
	dir := t.TempDir()
	recA := filepath.Join(dir, "a.rec")
	const ticks = "600" // 10 s of play, which the peers stop well before
	a := start(t, "duel -listen", bins.duel, "-listen", "127.0.0.1:0", "-headless", "-ticks", ticks, "-bot", "1", "-seed", "1", "-record", recA)
	addr := a.waitFor(waitingRE, true, time.Minute)
	b := startEnv(t, []string{"TMPDIR=" + dir}, "duel -connect", bins.duel, "-connect", addr, "-headless", "-ticks", ticks, "-bot", "2", "-seed", "2")
	desyncRE := regexp.MustCompile(`desync at tick (\d+): checksum 0x([0-9a-f]{16}) here, 0x([0-9a-f]{16}) there`)
	keptRE := regexp.MustCompile(`recorded in (\S+):`)
	type report struct{ tick, here, there, rec string }
	var reports []report
	for _, p := range []*process{a, b} {
		code := p.wait(time.Minute)
		out, errOut := p.output()
		m, kept := desyncRE.FindStringSubmatch(errOut), keptRE.FindStringSubmatch(errOut)
		if code != exitError || m == nil || kept == nil {
			t.Fatalf("%s: exit status %d, stderr %q; want %d, the desync and the recording kept", p.name, code, errOut, exitError)
		}
		if out != "" {
			t.Errorf("%s printed %q: want nothing on stdout, the game stopped at the desync", p.name, out)
		}
		if i := statsRE.FindStringIndex(errOut); i != nil && i[0] < desyncRE.FindStringIndex(errOut)[0] {
			t.Errorf("%s: the session's figures before the desync: want the desync first:\n%s", p.name, errOut)
		}
		reports = append(reports, report{m[1], m[2], m[3], kept[1]})
		t.Logf("%s: %s", p.name, strings.TrimSpace(errOut))
	}
	ra, rb := reports[0], reports[1]
	if ra.tick != "60" || rb.tick != "60" || ra.here != rb.there || ra.there != rb.here {
		t.Fatalf("the peers report %+v and %+v: want tick 60 (the first compared), each one's checksum the other's 'there'", ra, rb)
	}
	if ra.rec != recA || filepath.Dir(rb.rec) != dir {
		t.Errorf("recordings kept in %s and %s: want -record's, and one in TMPDIR %s", ra.rec, rb.rec, dir)
	}
	for _, r := range reports {
		checkRecorded(t, r.rec, 60, r.here)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, bins.duel, "-replay", r.rec).CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), " matched (") {
			t.Errorf("duel -replay %s: %v, %s; want matched", r.rec, err, out)
		}
	}
}

// A recording whose end record claims far more ticks than it holds (2^62, in 81 bytes: a
// hostile file, or a damaged one) is refused at the first tick it holds no checksum for, as
// a recording of duel holds one for every tick, rather than replayed for ever.
func TestReplayClaimsTooManyTicks(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name      string
		checksums int // of the first ticks, as the game replays them
		want      string
	}{
		{"none", 0, `tick 2: no checksum recorded for tick 1`},
		{"some", 3, `tick 5: no checksum recorded for tick 4`},
	} {
		rec := &replay.Recording{
			Header:   replay.Header{Name: duelnet.RecordName, Meta: duelnet.StartMeta(1), TickRate: 60},
			Ticks:    1 << 62,
			Complete: true,
		}
		g := duelnet.NewGame(1, 1, nil)
		for tick := 1; tick <= tt.checksums; tick++ {
			g.State.Step([2]duel.Input{})
			rec.Checksums = append(rec.Checksums, replay.Checksum{Tick: uint64(tick), Sum: g.State.Checksum()})
		}
		var buf bytes.Buffer
		if err := rec.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		if tt.checksums == 0 {
			t.Logf("the recording without checksums: %d bytes", buf.Len())
		}
		path := filepath.Join(dir, tt.name+".rec")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var stdout bytes.Buffer
		err := runReplay(ctx, path, 1, &stdout)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, stdout %q; want an error saying %q at once", tt.name, err, stdout.String(), tt.want)
		}
		t.Logf("%s: %v", tt.name, err)
		if tt.name != "some" {
			continue
		}
		// Whatever a recording holds, a replay that runs too long is stopped, and says so.
		err = replayWithin(context.Background(), path, 1, &stdout, time.Nanosecond)
		if want := "stopped after 1ns, which no recording of duel takes"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s replayed within 1ns: %v; want %q", tt.name, err, want)
		}
		t.Logf("%s replayed within 1ns: %v", tt.name, err)
	}
}
