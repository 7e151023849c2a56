package duel

// Why the game is integers: the same float expression can give two answers from one source
// file, depending on how it was built. Go lets the compiler fuse x*y + z into one fused
// multiply-add, which rounds once instead of twice; on amd64 it does so when built for
// GOAMD64=v3 (and on arm64, ppc64le and s390x always), not at amd64's default v1. Two peers
// built differently then diverge. An explicit conversion, float64(x*y) + z, forbids the fusing
// (the Go specification says so), and integer arithmetic is exact on every machine.

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// floatProgram prints x*y + z three ways, for values the compiler cannot see: as written
// (which may be fused), with the product converted first (never fused), and in integers. The
// values are chosen so that rounding the product before adding matters: x*y is 1 - 2^-60, which
// rounds to 1, so the unfused sum is 0 and the fused one -2^-60. In integers the same numbers
// (scaled by 2^30) give 2^60 - 1 - 2^60 = -1 exactly.
const floatProgram = `package main

//go:noinline
func fused(x, y, z float64) float64 { return x*y + z }

//go:noinline
func separate(x, y, z float64) float64 { return float64(x*y) + z }

//go:noinline
func integer(x, y, z int64) int64 { return x*y + z }

func main() {
	const e = 1.0 / (1 << 30)
	println("fused", fused(1+e, 1-e, -1))
	println("separate", separate(1+e, 1-e, -1))
	println("integer", integer(1<<30+1, 1<<30-1, -(1 << 60)))
}
`

func TestFloatsFuseByBuild(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("on %s: the comparison is of amd64's GOAMD64=v1 and v3", runtime.GOARCH)
	}
	if testing.Short() {
		t.Skip("builds a program twice")
	}
	cpu, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("cannot tell whether the CPU has FMA: %v", err)
	}
	for _, flag := range []string{"fma", "avx2", "bmi2"} {
		if !strings.Contains(string(cpu), " "+flag+" ") && !strings.Contains(string(cpu), " "+flag+"\n") {
			t.Skipf("the CPU lacks %s: a GOAMD64=v3 program cannot run here", flag)
		}
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"main.go": floatProgram,
		"go.mod":  "module floats\n\ngo 1.26\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outputs := map[string]string{}
	for _, level := range []string{"v1", "v3"} {
		bin := filepath.Join(dir, "floats-"+level)
		// -S prints the compiler's assembly of the package, with its own names of instructions.
		build := exec.Command("go", "build", "-gcflags=-S", "-o", bin, ".")
		build.Dir = dir
		build.Env = append(os.Environ(), "GOAMD64="+level, "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
		asm, err := build.CombinedOutput()
		if err != nil {
			t.Fatalf("GOAMD64=%s go build: %v\n%s", level, err, asm)
		}
		out, err := exec.Command(bin).CombinedOutput() // println writes to stderr
		if err != nil {
			t.Fatalf("running the GOAMD64=%s build: %v\n%s", level, err, out)
		}
		outputs[level] = string(out)
		fused, separate := functionText(string(asm), "main.fused"), functionText(string(asm), "main.separate")
		t.Logf("GOAMD64=%s: x*y + z is %s; float64(x*y) + z is %s; the program prints\n%s",
			level, strings.Join(fused, "; "), strings.Join(separate, "; "), out)
		if has(separate, "VFMADD") || !has(separate, "MULSD") || !has(separate, "ADDSD") {
			t.Errorf("GOAMD64=%s: float64(x*y) + z should be a MULSD then an ADDSD, never fused:\n%s", level, separate)
		}
		if wantFused := level == "v3"; has(fused, "VFMADD231SD") != wantFused {
			t.Errorf("GOAMD64=%s: x*y + z fused into VFMADD231SD: %v, want %v:\n%s", level, !wantFused, wantFused, fused)
		}
	}
	v1, v3 := lines(outputs["v1"]), lines(outputs["v3"])
	if v1["fused"] == v3["fused"] {
		t.Errorf("x*y + z gave %s in both builds; want the fused v3 build to differ", v1["fused"])
	}
	if v1["separate"] != v3["separate"] || v1["integer"] != v3["integer"] {
		t.Errorf("the explicit conversion or the integers differ between the builds: v1 %v, v3 %v", v1, v3)
	}
	if v1["fused"] != v1["separate"] || v1["integer"] != "-1" {
		t.Errorf("GOAMD64=v1: %v; want x*y + z unfused (as the conversion) and the integers -1", v1)
	}
}

// functionText returns the instructions of one function in the compiler's -S output, such as
// "MULSD X1, X0": from the indented lines after the one that names it ("main.fused STEXT ..."),
// those that hold an instruction (with its file and line in parentheses), without the
// pseudo-instructions (TEXT, FUNCDATA, PCDATA).
func functionText(asm, name string) []string {
	start := strings.Index(asm, "\n"+name+" STEXT")
	if start < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(asm[start+1:], "\n")[1:] {
		if !strings.HasPrefix(l, "\t") {
			break // the next symbol
		}
		_, after, ok := strings.Cut(l, ".go:")
		if !ok {
			continue // the machine code's bytes, relocations
		}
		_, inst, _ := strings.Cut(after, ")")
		fields := strings.Fields(inst)
		if len(fields) == 0 || fields[0] == "TEXT" || fields[0] == "FUNCDATA" || fields[0] == "PCDATA" {
			continue
		}
		out = append(out, strings.Join(fields, " "))
	}
	return out
}

// has reports whether one of the instructions starts with op.
func has(instructions []string, op string) bool {
	for _, in := range instructions {
		if strings.HasPrefix(in, op) {
			return true
		}
	}
	return false
}

// lines returns the program's output as name: value.
func lines(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, value, ok := strings.Cut(l, " "); ok {
			m[name] = value
		}
	}
	return m
}
