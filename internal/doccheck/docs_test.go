package doccheck_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// root is the repository's root, where the documents are and where their commands run.
const root = "../.."

// docs returns the documents checked: README.md and docs/*.md.
func docs(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, paths...)
}

// block is a fenced code block of a document.
type block struct {
	where string // file:line of the opening fence
	info  string // the fence's info string, such as "go" or "sh"
	text  string
}

var fence = regexp.MustCompile("^\\s*```\\s*(\\S*)\\s*$")

// blocks returns the fenced code blocks of the document at path.
func blocks(t *testing.T, path string) []block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	var indent string
	for i, line := range strings.Split(string(data), "\n") {
		m := fence.FindStringSubmatch(line)
		switch {
		case cur == nil && m != nil:
			cur = &block{where: filepath.Base(path) + ":" + strconv.Itoa(i+1), info: m[1]}
			indent = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		case cur != nil && m != nil && m[1] == "":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	return out
}

// squeeze removes all white space, so that a fragment matches its gofmt'd copy.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// TestGoSnippets checks every Go block of the documents: whole programs are built and run and
// must exit 0 with output (one that imports Ebitengine is vetted everywhere and run where there
// is a display, as under xvfb-run), and print exactly the block after them where that block is marked
// "output" (a program whose output is the same every run); fragments must be, as written, in
// snippets_test.go or in another Go file of the repository (one for WebAssembly, say, which
// scripts/test.d/wasm.sh builds).
func TestGoSnippets(t *testing.T) {
	haystack := squeeze(goSources(t))
	n := 0
	for _, doc := range docs(t) {
		bs := blocks(t, doc)
		for i, b := range bs {
			if b.info == "output" && (i == 0 || !isProgram(bs[i-1])) {
				t.Errorf("%s: an output block follows no Go program, so nothing checks it", b.where)
			}
			if b.info != "go" {
				continue
			}
			n++
			if isProgram(b) {
				var want *block
				if i+1 < len(bs) && bs[i+1].info == "output" {
					want = &bs[i+1]
				}
				t.Run(b.where, func(t *testing.T) { runProgram(t, b, want) })
				continue
			}
			if !strings.Contains(haystack, squeeze(b.text)) {
				t.Errorf("%s: this Go fragment is in no Go file, so nothing compiles it; copy it to snippets_test.go, in the context it assumes:\n%s", b.where, b.text)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d Go blocks found: the documents have moved?", n)
	}
}

// isProgram reports whether b is a whole Go program.
func isProgram(b block) bool {
	return b.info == "go" && strings.HasPrefix(strings.TrimSpace(b.text), "package main")
}

// goSources returns the text of every Go file of the repository, but for test data.
func goSources(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".doccheck-")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			all.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

// runProgram builds and runs a whole program of a document, inside this module, as a user of
// the module would compile it, and checks that it prints want, if not nil.
func runProgram(t *testing.T, b block, want *block) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	dir, err := os.MkdirTemp(root, ".doccheck-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.text), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Base(dir)
	for _, args := range [][]string{{"vet", pkg}, {"run", pkg}} {
		if args[0] == "run" && needsDisplay(b) && os.Getenv("DISPLAY") == "" {
			if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
				t.Fatal("an Ebitengine program needs a display: no DISPLAY, and GAMELOOP_REQUIRE_ALL=1")
			}
			t.Skip("vetted, not run: an Ebitengine program needs a display (run the tests under xvfb-run -a)")
		}
		out, err := run(t, root, exec.Command("go", args...))
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "run" && len(strings.TrimSpace(out)) == 0 {
			t.Fatalf("go run printed nothing")
		}
		if args[0] == "run" && want != nil && strings.TrimSpace(out) != strings.TrimSpace(want.text) {
			t.Errorf("the program printed\n%s\nwhere %s shows\n%s", out, want.where, want.text)
		}
	}
}

// needsDisplay reports whether the program b imports Ebitengine, which ends at start-up without
// a display (DISPLAY, on Linux).
func needsDisplay(b block) bool {
	return strings.Contains(b.text, `"github.com/hajimehoshi/ebiten/v2"`)
}

// unattended lists the commands of the documents that do not run unattended as pasted, and
// what tests them instead.
var unattended = map[string]string{
	"go run ./cmd/bounce":                    "an interactive terminal game: cmd/bounce/e2e_test.go plays it in tmux",
	"go run ./cmd/bounce -record bounce.rec": "records an interactive session: cmd/bounce/e2e_test.go records one in tmux",
	"go run ./cmd/bounceweb":                 "a web server for a browser to play in: cmd/bounceweb/browser_test.go plays it in Chromium",
	"go run ./cmd/bounceweb -record web.rec": "a web server for a browser to play in: cmd/bounceweb/browser_test.go records in Chromium",
	"go run ./cmd/matchserver -addr 127.0.0.1:7000 -metrics 127.0.0.1:9100 -record /tmp/matches": "a server that runs until SIGTERM: cmd/matchserver's tests start it, load it with 1,000 clients and stop it",
	"go run ./cmd/matchserver -replay /tmp/matches/match-1.rec":                                  "replays what a server session recorded: cmd/matchserver's load test replays every recording",
	"bash scripts/test.sh":                                        "runs every test, this one among them",
	"bash scripts/measure.sh":                                     "runs the measuring commands at full length (15 minutes): this test runs each in its short form",
	"go test ./...":                                               "runs every test, this one among them",
	"go get github.com/gameloop-go/gameloop@latest":               "adds the module to another module; the whole program in README.md is built against this checkout",
	"go run ./cmd/colorfade":                                      "an interactive window: cmd/colorfade's tests drive it under Xvfb",
	"xvfb-run -a go run ./cmd/colorfade":                          "an interactive window: cmd/colorfade's tests drive it under Xvfb",
	"go run ./cmd/colorfade -tps 30 -fps 144 -vsync=false -stats": "an interactive window: cmd/colorfade's tests drive it under Xvfb",
	"go run ./cmd/colorfade -record fade.rec":                     "records an interactive window: cmd/colorfade/replay_test.go records one under Xvfb",
	"go run ./cmd/colorfade -replay fade.rec":                     "replays what the interactive command before it records: cmd/colorfade/replay_test.go",
	"go run ./cmd/bouncegl":                                       "an interactive window: cmd/bouncegl's tests drive it under Xvfb",
	"go run ./cmd/bouncegl -tps 10 -fps 60":                       "an interactive window: cmd/bouncegl's tests drive it under Xvfb",
	"sudo apt-get install --no-install-recommends gcc libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev": "installs system packages as root: scripts/test.sh installs the same ones",
	"sudo apt-get install --no-install-recommends xvfb xauth libgl1-mesa-dri xdotool":                                                                   "installs system packages as root: scripts/test.sh installs the same ones",
	"go run ./cmd/duel -listen 127.0.0.1:7000":                                                                                     "an interactive terminal game: cmd/duel/e2e_test.go plays two in tmux",
	"go run ./cmd/duel -connect 127.0.0.1:7000":                                                                                    "an interactive terminal game: cmd/duel/e2e_test.go plays two in tmux",
	"go run ./cmd/duel -listen :7000":                                                                                              "an interactive terminal game on two machines: cmd/duel's tests play two over loopback UDP",
	"go run ./cmd/duel -connect 192.0.2.10:7000":                                                                                   "an interactive terminal game on two machines: cmd/duel's tests play two over loopback UDP",
	"go run ./cmd/duel -connect 127.0.0.1:7001":                                                                                    "an interactive terminal game through netsim: cmd/duel/e2e_test.go plays two in tmux through netsim",
	"go run ./cmd/netsim -listen 127.0.0.1:7001 -to 127.0.0.1:7000 -preset poor":                                                   "a proxy that runs until Ctrl-C: cmd/duel's and cmd/netsim's tests run it",
	"go run ./cmd/duel -spectate 127.0.0.1:7000":                                                                                   "an interactive terminal spectator: cmd/duel/spectate_test.go watches a game in tmux",
	"go run ./cmd/lobby -listen 127.0.0.1:8089":                                                                                    "a server that runs until SIGTERM: cmd/lobby's tests run it, meet two rtc peers through it and stop it",
	"go run peer.go -lobby ws://127.0.0.1:8089/ws":                                                                                 "one of two peers run in two terminals against a lobby: the program itself runs here without -lobby, and cmd/lobby's TestServe meets two rtc peers through the command",
	"go run -tags ebiten ./cmd/duel -gui -listen 127.0.0.1:7000":                                                                   "an interactive window game: cmd/duel/window_test.go plays one under Xvfb against a headless peer",
	"go run ./cmd/duelweb -listen 127.0.0.1:8090":                                                                                  "a web server for browsers to play in: cmd/duelweb/browser_test.go plays two pages, and a page against duel -lobby, in Chromium",
	"go run ./cmd/duel -lobby ws://127.0.0.1:8090/ws -room duel":                                                                   "an interactive terminal game against a browser: cmd/duelweb/browser_test.go plays a headless duel -lobby against a page, cmd/duel/lobby_test.go two",
	"go run ./cmd/duel -lobby ws://127.0.0.1:8090/ws -room duel -netsim poor":                                                      "an interactive terminal game over a simulated bad network: cmd/duel/lobby_test.go's TestLobbyNetsim plays two headless under poor",
	"go run ./cmd/duel -lobby ws://127.0.0.1:8090/ws -room duel -lobby-relay":                                                      "an interactive terminal game through duelweb's relay against a browser: cmd/duelweb/browser_test.go plays a headless one against a page in Chromium",
	"go run ./cmd/duel -replay duel.rec":                                                                                           "replays a recording downloaded from the page: cmd/duelweb/browser_test.go replays the pages' recordings with duel -replay",
	"bash scripts/many-cores.sh run":                                                                                               "measures for 8 minutes the machine it runs on, for the many-core table: serverbench's and plainticker's tests run them short",
	"go run ./cmd/relay -listen 127.0.0.1:7400 -metrics 127.0.0.1:7401 -open":                                                      "a server that runs until SIGTERM: cmd/relay's TestServe runs one, plays a match through it and stops it; cmd/duel/relay_test.go plays duels through the command",
	"go run ./cmd/duel -relay 127.0.0.1:7400 -match duel":                                                                          "an interactive terminal game through a relay: cmd/duel/relay_test.go plays two headless through a relay process, and stops one for 3 s",
	"go run ./cmd/duel -relay 127.0.0.1:7400 -match duel -spectate":                                                                "an interactive terminal spectator through a relay: cmd/duel/relay_test.go watches a match headless",
	"go run ./cmd/relay -listen 127.0.0.1:7400 -metrics 127.0.0.1:7401 -keys relay.keys -snapshot-every 300 -history 3600":         "a server that runs until SIGTERM: cmd/duel/relay_test.go's TestRelayRejoinFromSnapshot runs one with tokens and snapshots",
	"go run ./cmd/duel -relay 127.0.0.1:7400 -match duel -token $(go run ./cmd/relay -keys relay.keys -token -match duel -slot 0)": "an interactive terminal game through a relay with a token: cmd/duel/relay_test.go's TestRelayRejoinFromSnapshot plays two headless with tokens, and restarts one",
}

// inSuite lists the commands of the documents that run tests scripts/test.sh runs itself, each
// with where: TestCommands does not run them a second time.
var inSuite = map[string]string{
	"go test":                          "names the tool in a sentence; scripts/test.sh runs every package's tests",
	"go test -race ./cmd/matchserver/": "scripts/test.sh's go test -race ./... runs it",
	"go test -count=1 -v -run TestBrowser ./cmd/bounceweb":                                        "scripts/test.sh's go test -race ./... runs it",
	"go test -count=1 -v -run TestBrowserGamepad ./cmd/bounceweb":                                 "scripts/test.sh's go test -race ./... runs it",
	"bash scripts/test.d/wasm.sh":                                                                 "scripts/test.sh runs every script of scripts/test.d",
	"GAMELOOP_DUEL_TICKS=1800 go test -count=1 -v -run TestHeadlessThroughNetsimPoor ./cmd/duel":  "scripts/test.sh's go test -race ./... runs it at 600 ticks",
	"GAMELOOP_DUEL_TICKS=1800 go test -count=1 -v -run TestSpectatorThroughNetsimPoor ./cmd/duel": "scripts/test.sh's go test -race ./... runs it at 600 ticks",
	"go test -count=1 -v -run TestFloatsFuseByBuild ./internal/duel":                              "scripts/test.sh's go test -race ./... runs it",
	"GOOS=js GOARCH=wasm go build ./netplay/rtc":                                                  "scripts/test.d/rtc-wasm.sh builds and vets it",
	"go test -count=1 -v -run TestBrowserDuel ./cmd/duelweb":                                      "scripts/test.sh's go test -race ./... runs it",
	"go test ./agones ./cmd/relay ./cmd/matchserver":                                              "scripts/test.sh's go test -race ./... runs them",
}

// measuresInSuite lists the commands that print figures the documents quote and that no
// shortening covers: those of inSuite, and those quick enough to run as pasted, such as
// TestSimulatedPresets on simulated time, which checks its figures against docs/duel.md's
// table when run as pasted. scripts/measure.sh runs them with the others at full length.
var measuresInSuite = map[string]bool{
	"go test -count=1 -v -run TestBrowser ./cmd/bounceweb":                                        true,
	"GAMELOOP_DUEL_TICKS=1800 go test -count=1 -v -run TestHeadlessThroughNetsimPoor ./cmd/duel":  true,
	"GAMELOOP_DUEL_TICKS=1800 go test -count=1 -v -run TestSpectatorThroughNetsimPoor ./cmd/duel": true,
	"GAMELOOP_DUEL_MINUTES=10 go test -count=1 -v -run TestSimulatedPresets ./cmd/duel":           true,
	"go test -count=1 -run TestBandwidthInputsChanging -v ./netplay":                              true,
	"go test -count=1 -run TestRooms -v ./cmd/lobby -rooms 1000":                                  true,
}

// prepared lists commands that need a file an unattended command would make, and the command
// run first, unattended, to make it.
var prepared = map[string]string{
	"go run ./cmd/bounce -replay bounce.rec":                                       "go run ./cmd/bounce -headless -seconds 1 -record bounce.rec",
	"go run ./cmd/bounce -replay web.rec":                                          "cp cmd/bounceweb/testdata/chromium.rec web.rec",
	"go run ./cmd/duel -replay left.rec":                                           duelPair,
	"go run ./cmd/duel -replay right.rec":                                          duelPair,
	"go run ./cmd/duel -replay watched.rec":                                        duelWatched,
	"go run ./cmd/relay -keys relay.keys -token -match duel-42 -slot 0 -expiry 1h": "go run ./cmd/relay -genkey relay.keys",
}

// duelPair is docs/duel.md's headless game between two peers, which records left.rec and
// right.rec.
const duelPair = "go run ./cmd/duel -listen 127.0.0.1:7300 -headless -ticks 120 -bot 1 -record left.rec & " +
	"go run ./cmd/duel -connect 127.0.0.1:7300 -headless -ticks 120 -bot 2 -record right.rec && wait $!"

// duelWatched is docs/duel.md's headless game between two peers and a spectator, which
// records watched.rec.
const duelWatched = "go run ./cmd/duel -listen 127.0.0.1:7310 -headless -ticks 120 -bot 1 & " +
	"go run ./cmd/duel -spectate 127.0.0.1:7310 -headless -ticks 120 -record watched.rec & " +
	"go run ./cmd/duel -connect 127.0.0.1:7310 -headless -ticks 120 -bot 2 && wait"

// shortening is how the test shortens a command of one tool that runs for a set time: the
// benchmarks that made the documents' tables and plots, and demos paced in real time. Each
// flag named in set gets that value, in place if the command has it, else appended.
type shortening struct {
	prefix    string            // the command's start, such as "go run ./cmd/loopbench "
	flag      string            // and a flag it must have (without the dash), if not empty
	set       map[string]string // flag (without the dash) -> value in the short form
	measuring bool              // it prints figures the documents quote: scripts/measure.sh runs it
}

var shortenings = []shortening{
	// Each run is a process per strategy: -warmup then -seconds, -runs times.
	{prefix: "go run ./cmd/serverbench ", set: map[string]string{"seconds": "0.2", "warmup": "0.1", "runs": "1"}, measuring: true},
	// Each strategy at each rate for -seconds.
	{prefix: "go run ./cmd/loopbench ", set: map[string]string{"seconds": "0.3"}, measuring: true},
	// Each row a process for -warmup then -seconds, -runs times.
	{prefix: "go run ./cmd/netbench ", set: map[string]string{"seconds": "0.3", "warmup": "0.1", "runs": "1"}, measuring: true},
	// A benchmark runs for -benchtime (1s), -count times.
	// The package's tests, which -bench runs too, run in the suite: only the benchmarks here.
	{prefix: "go test ", flag: "bench", set: map[string]string{"benchtime": "10x", "count": "1", "run": "^$"}, measuring: true},
	// Ebitengine's loop and gameloop inside it, a process each for -seconds, -runs times.
	{prefix: "xvfb-run -a go run ./backend/ebiten/internal/bench ", set: map[string]string{"seconds": "3", "runs": "1"}, measuring: true},
	// Peers leaving netplay games: -leave-games seeded games, about 30 ms each.
	{prefix: "go test ", flag: "leave-games", set: map[string]string{"leave-games": "20"}, measuring: true},
	// Peers meeting every fault in netplay games: -fault-games seeded games, about 40 ms each.
	{prefix: "go test ", flag: "fault-games", set: map[string]string{"fault-games": "20"}, measuring: true},
	// Each row a relay process and players' processes, -warmup then -seconds, -runs times.
	{prefix: "go run ./cmd/relaybench ", set: map[string]string{"rows": "20x2,10x4", "seconds": "0.3", "warmup": "0.1", "runs": "1"}, measuring: true},
	// A headless bounce is paced in real time: -seconds of game time take as long.
	{prefix: "go run ./cmd/bounce ", flag: "headless", set: map[string]string{"seconds": "1"}},
}

// full reports whether the measuring commands run as pasted, at full length, rather than in
// their short form: GAMELOOP_DOCS_FULL=1.
func full() bool { return os.Getenv("GAMELOOP_DOCS_FULL") == "1" }

// shortForm returns the command the test runs for cmd: cmd itself, or, for a command that runs
// for a set time, the same command with shorter durations and fewer repetitions (unless full()).
// measuring reports whether cmd prints figures that the documents quote.
func shortForm(cmd string) (short string, measuring bool) {
	if strings.ContainsAny(cmd, ";&") || strings.Contains(cmd, " | ") {
		return cmd, false // a pipeline: no flag of it can be told apart safely
	}
	for _, s := range shortenings {
		if !strings.HasPrefix(cmd, s.prefix) || s.flag != "" && !hasFlag(cmd, s.flag) {
			continue
		}
		if full() {
			return cmd, s.measuring
		}
		return setFlags(cmd, s.set), s.measuring
	}
	return cmd, measuresInSuite[cmd]
}

// shorter reports whether a count of iterations as pasted, such as -benchtime 3x, is already
// no more than the short form's, such as 10x: it is then kept.
func shorter(pasted, short string) bool {
	p, err1 := strconv.Atoi(strings.TrimSuffix(pasted, "x"))
	n, err2 := strconv.Atoi(strings.TrimSuffix(short, "x"))
	return strings.HasSuffix(pasted, "x") && strings.HasSuffix(short, "x") && err1 == nil && err2 == nil && p <= n
}

// hasFlag reports whether cmd has the flag -name, as -name, -name=value or --name.
func hasFlag(cmd, name string) bool {
	for _, w := range strings.Fields(cmd) {
		if w, ok := strings.CutPrefix(w, "-"); ok {
			w = strings.TrimPrefix(w, "-")
			if w == name || strings.HasPrefix(w, name+"=") {
				return true
			}
		}
	}
	return false
}

// setFlags returns cmd with each flag of set given its value: -name value or -name=value in
// place, or -name value appended.
func setFlags(cmd string, set map[string]string) string {
	words := strings.Fields(cmd)
	names := slices.Sorted(maps.Keys(set))
	for _, name := range names {
		found := false
		for i := 0; i < len(words); i++ {
			w, ok := strings.CutPrefix(words[i], "-")
			if !ok {
				continue
			}
			w = strings.TrimPrefix(w, "-")
			switch {
			case w == name && i+1 < len(words):
				if !shorter(words[i+1], set[name]) {
					words[i+1] = set[name]
				}
				found = true
			case strings.HasPrefix(w, name+"="):
				if !shorter(strings.TrimPrefix(w, name+"="), set[name]) {
					words[i] = "-" + name + "=" + set[name]
				}
				found = true
			}
		}
		if !found {
			words = append(words, "-"+name, set[name])
		}
	}
	return strings.Join(words, " ")
}

var commandWord = regexp.MustCompile(`^(go|bash|xvfb-run|sudo|GOOS=\S+)\s`)

// commands returns the shell commands of the document at path: the lines of its sh blocks
// (and of unmarked blocks that hold only commands), and its inline code that is a command.
func commands(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, b := range blocks(t, path) {
		if b.info != "sh" && b.info != "bash" && b.info != "" {
			continue
		}
		text := strings.ReplaceAll(b.text, "\\\n", " ")
		var lines []string
		isCommands := true
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(regexp.MustCompile(`\s+#\s.*$`).ReplaceAllString(line, ""))
			if line == "" {
				continue
			}
			if !commandWord.MatchString(line) {
				isCommands = false
			}
			lines = append(lines, strings.Join(strings.Fields(line), " "))
		}
		if b.info != "" || isCommands {
			out = append(out, lines...)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(data), -1) {
		if cmd := strings.TrimSpace(m[1]); commandWord.MatchString(cmd) {
			out = append(out, strings.Join(strings.Fields(cmd), " "))
		}
	}
	return out
}

// TestCommands runs every shell command of the documents, as pasted, and checks that it exits 0
// and prints something. They run in a copy of the repository (without .git), so that what they
// write (recordings, plots) changes nothing here.
func TestCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documents' commands: benchmarks, demos, tests")
	}
	dir := copyTree(t, root)
	seen := map[string]bool{}
	for _, doc := range docs(t) {
		for _, cmd := range commands(t, doc) {
			if seen[cmd] {
				continue
			}
			seen[cmd] = true
			if why, ok := unattended[cmd]; ok {
				t.Logf("not run: %s (%s)", cmd, why)
				continue
			}
			if why, ok := inSuite[cmd]; ok {
				t.Logf("not run twice: %s (%s)", cmd, why)
				continue
			}
			t.Run(cmd, func(t *testing.T) {
				if first, ok := prepared[cmd]; ok {
					if out, err := shell(t, dir, first); err != nil {
						t.Fatalf("preparing with %s: %v\n%s", first, err, out)
					}
				}
				run, _ := shortForm(cmd)
				if run != cmd {
					t.Logf("short form: %s", run)
				}
				start := time.Now()
				out, err := shell(t, dir, run)
				if err != nil {
					t.Fatalf("%s: %v\n%s", run, err, out)
				}
				if len(strings.TrimSpace(out)) == 0 {
					t.Fatalf("%s printed nothing", run)
				}
				t.Logf("%s: exit 0 in %v, %d bytes of output", run, time.Since(start).Round(time.Millisecond), len(out))
			})
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d commands found: the documents have moved?", len(seen))
	}
}

// copyTree copies the repository at src, but for .git and what the tests make, to a temporary
// directory, and returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || strings.HasPrefix(d.Name(), ".doccheck-")) {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copying the repository: %v", err)
	}
	return dst
}

// shell runs cmd with bash in dir.
//
// The go commands it runs build with -trimpath: the copy of the repository is in a new
// directory every run, and without it the build cache would key every package of the module
// on that directory, compiling them all again on every run, warm caches or not.
func shell(t *testing.T, dir, cmd string) (string, error) {
	c := exec.Command("bash", "-c", cmd)
	c.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))
	return run(t, dir, c)
}

// commandLimit is how long one command may run before it is killed.
const commandLimit = 5 * time.Minute

// run runs c in dir, with a time limit, and returns its output. The command runs in a process
// group of its own (on Unix), killed whole when the time is up and when the command has
// exited: a program that go run started, or one left in the background, ends with it rather
// than hold the output open or a port taken.
func run(t *testing.T, dir string, c *exec.Cmd) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), commandLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	cmd.Dir, cmd.Env = dir, c.Env
	cmd.WaitDelay = 5 * time.Second
	// A file rather than a pipe: the command has ended when its process has, whatever it left
	// running with the file open.
	f, err := os.CreateTemp(t.TempDir(), "output-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	killGroup := ownGroup(cmd)
	err = cmd.Run()
	killGroup()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("killed after %v: %w", commandLimit, err)
	}
	out, readErr := os.ReadFile(f.Name())
	if readErr != nil {
		t.Fatal(readErr)
	}
	return string(out), err
}

func TestShortForm(t *testing.T) {
	tests := []struct {
		cmd, short string
		measuring  bool
	}{
		{"go run ./cmd/serverbench -matches 1000 -hz 20 -seconds 5 -runs 3 -plot-res x.png",
			"go run ./cmd/serverbench -matches 1000 -hz 20 -seconds 0.2 -runs 1 -plot-res x.png -warmup 0.1", true},
		{"go run ./cmd/serverbench -seconds=5 -warmup 2s", "go run ./cmd/serverbench -seconds=0.2 -warmup 0.1 -runs 1", true},
		{"go run ./cmd/loopbench -hz 60 -seconds 8 -plot p.png", "go run ./cmd/loopbench -hz 60 -seconds 0.3 -plot p.png", true},
		{"go run ./cmd/loopbench -hz 240", "go run ./cmd/loopbench -hz 240 -seconds 0.3", true},
		{"go test -run '^$' -bench 'A|B' -benchmem -count 5 .", "go test -run ^$ -bench 'A|B' -benchmem -count 1 . -benchtime 10x", true},
		{"go test -bench=Replay -count=5 ./replay", "go test -bench=Replay -count=1 ./replay -benchtime 10x -run ^$", true},
		{"go test -run '^$' -bench '^BenchmarkX$' -benchtime 3x .", "go test -run ^$ -bench '^BenchmarkX$' -benchtime 3x . -count 1", true},
		{"go test -bench X -benchtime=500x .", "go test -bench X -benchtime=10x . -count 1 -run ^$", true},
		{"go run ./cmd/bounce -headless -seconds 10 -record h.rec", "go run ./cmd/bounce -headless -seconds 1 -record h.rec", false},
		{"go run ./cmd/bounce -replay h.rec", "go run ./cmd/bounce -replay h.rec", false},
		{"go test -run TestZeroAllocsPerFrame .", "go test -run TestZeroAllocsPerFrame .", false},
		{"go test -count=1 -v -run TestBrowser ./cmd/bounceweb", "go test -count=1 -v -run TestBrowser ./cmd/bounceweb", true},
		{"go test -count=1 -run TestPeersLeave ./netplay -leave-games 1000", "go test -count=1 -run TestPeersLeave ./netplay -leave-games 20", true},
		{"xvfb-run -a go run ./backend/ebiten/internal/bench -seconds 60 -runs 3", "xvfb-run -a go run ./backend/ebiten/internal/bench -seconds 3 -runs 1", true},
		{"go run ./cmd/loopbench -seconds 8 && ls", "go run ./cmd/loopbench -seconds 8 && ls", false},
	}
	for _, tt := range tests {
		short, measuring := shortForm(tt.cmd)
		if short != tt.short || measuring != tt.measuring {
			t.Errorf("shortForm(%q)\n = %q, %v\nwant %q, %v", tt.cmd, short, measuring, tt.short, tt.measuring)
		}
	}
	t.Setenv("GAMELOOP_DOCS_FULL", "1")
	for _, tt := range tests {
		if short, measuring := shortForm(tt.cmd); short != tt.cmd || measuring != tt.measuring {
			t.Errorf("with GAMELOOP_DOCS_FULL=1, shortForm(%q) = %q, %v; want it as it is, %v", tt.cmd, short, measuring, tt.measuring)
		}
	}
}

// TestMeasuringCommands finds the commands of the documents that print the figures they quote.
// With GAMELOOP_DOCS_LIST=FILE it writes them to FILE, one a line, for scripts/measure.sh to
// run at full length.
func TestMeasuringCommands(t *testing.T) {
	var list []string
	seen := map[string]bool{}
	for _, doc := range docs(t) {
		for _, cmd := range commands(t, doc) {
			if _, measuring := shortForm(cmd); measuring && !seen[cmd] {
				seen[cmd] = true
				list = append(list, cmd)
			}
		}
	}
	if len(list) < 5 {
		t.Fatalf("only %d measuring commands found: the documents have moved?", len(list))
	}
	for cmd := range measuresInSuite {
		if !seen[cmd] {
			t.Errorf("measuresInSuite lists %q, which no document has", cmd)
		}
	}
	if path := os.Getenv("GAMELOOP_DOCS_LIST"); path != "" {
		if err := os.WriteFile(path, []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
