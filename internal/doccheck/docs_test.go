package doccheck_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
// must exit 0 with output; fragments must be, as written, in snippets_test.go or in another Go
// file of the repository (one for WebAssembly, say, which scripts/test.d/wasm.sh builds).
func TestGoSnippets(t *testing.T) {
	haystack := squeeze(goSources(t))
	n := 0
	for _, doc := range docs(t) {
		for _, b := range blocks(t, doc) {
			if b.info != "go" {
				continue
			}
			n++
			if strings.HasPrefix(strings.TrimSpace(b.text), "package main") {
				t.Run(b.where, func(t *testing.T) { runProgram(t, b) })
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
// the module would compile it.
func runProgram(t *testing.T, b block) {
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
		out, err := run(t, root, exec.Command("go", args...))
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "run" && len(strings.TrimSpace(out)) == 0 {
			t.Fatalf("go run printed nothing")
		}
	}
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
	"bash scripts/test.sh": "runs every test, this one among them",
	"go test ./...":        "runs every test, this one among them",
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
}

// prepared lists commands that need a file an unattended command would make, and the command
// run first, unattended, to make it.
var prepared = map[string]string{
	"go run ./cmd/bounce -replay bounce.rec": "go run ./cmd/bounce -headless -seconds 2 -record bounce.rec",
	"go run ./cmd/bounce -replay web.rec":    "cp cmd/bounceweb/testdata/chromium.rec web.rec",
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
			t.Run(cmd, func(t *testing.T) {
				if first, ok := prepared[cmd]; ok {
					if out, err := shell(t, dir, first); err != nil {
						t.Fatalf("preparing with %s: %v\n%s", first, err, out)
					}
				}
				start := time.Now()
				out, err := shell(t, dir, cmd)
				if err != nil {
					t.Fatalf("%s: %v\n%s", cmd, err, out)
				}
				if len(strings.TrimSpace(out)) == 0 {
					t.Fatalf("%s printed nothing", cmd)
				}
				t.Logf("%s: exit 0 in %v, %d bytes of output", cmd, time.Since(start).Round(time.Millisecond), len(out))
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
func shell(t *testing.T, dir, cmd string) (string, error) {
	return run(t, dir, exec.Command("bash", "-c", cmd))
}

// run runs c in dir, with a time limit, and returns its output.
func run(t *testing.T, dir string, c *exec.Cmd) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
