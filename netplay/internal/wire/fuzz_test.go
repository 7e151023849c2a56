package wire

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed corpora in testdata/fuzz")

// FuzzDecode feeds Decode arbitrary bytes. It must never panic nor allocate; it must fail with
// an *Error wrapping ErrMalformed or ErrVersion; and whatever it accepts must be written back
// by Append byte for byte, decode again to the same message, and (an Input) unpack against a
// reference of the right size.
//
// Run it with scripts/test.d/fuzz-wire.sh, or for longer (counted in inputs: see that script):
//
//	go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 3000000x -fuzzminimizetime 200x ./netplay/internal/wire
func FuzzDecode(f *testing.F) {
	var m, again Message
	buf := make([]byte, 0, MaxPacket)
	out := make([]byte, 0, MaxRawInputs)
	ref := make([]byte, MaxTickBytes)
	f.Fuzz(func(t *testing.T, pkt []byte) {
		var err error
		if allocs := testing.AllocsPerRun(1, func() { err = Decode(pkt, &m) }); allocs != 0 {
			t.Fatalf("Decode allocated %v times", allocs)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v is not an *Error of ErrMalformed or ErrVersion", err)
			}
			return
		}
		if len(pkt) > MaxPacket {
			t.Fatalf("accepted %d bytes", len(pkt))
		}
		buf, err = Append(buf[:0], &m)
		if err != nil {
			t.Fatalf("a decoded %v does not encode: %v", m.Kind, err)
		}
		if !bytes.Equal(buf, pkt) {
			t.Fatalf("re-encoded\n% x\nfrom\n% x", buf, pkt)
		}
		if err := Decode(buf, &again); err != nil || again != m {
			t.Fatalf("decode, encode, decode: %v, %+v, want %+v", err, again.Header, m.Header)
		}
		if m.Kind == KindInput {
			stride := m.Handles.Len() * m.InputSize
			res, err := m.UnpackInputs(out[:0], ref[:stride])
			if err != nil && m.Count > 0 || len(res) != m.Count*stride {
				t.Fatalf("a decoded Input of %d ticks of %d bytes unpacks to %d bytes, %v", m.Count, stride, len(res), err)
			}
		}
	})
}

// FuzzInputs compresses arbitrary inputs against an arbitrary reference: they must decompress
// to themselves, within the size bound that keeps a tick in a packet, and PackInputs must pack
// a prefix of whole ticks that Decode and UnpackInputs give back.
func FuzzInputs(f *testing.F) {
	f.Fuzz(func(t *testing.T, stride uint8, ref, inputs []byte) {
		s := 1 + int(stride)%MaxTickBytes
		ref = append(ref, make([]byte, s)...)[:s]
		inputs = inputs[:len(inputs)/s*s]
		c, err := CompressInputs(nil, ref, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if bound := len(inputs) + (len(inputs)+litMax-1)/litMax; len(c) > bound {
			t.Fatalf("%d bytes compressed to %d, over %d", len(inputs), len(c), bound)
		}
		back := make([]byte, len(inputs))
		if err := DecompressInputs(back, ref, c); err != nil || !bytes.Equal(back, inputs) {
			t.Fatalf("round trip: %v\n% x\nwant\n% x", err, back, inputs)
		}
		if len(inputs) > 0 {
			if err := DecompressInputs(back[:len(back)-s], ref, c); err == nil {
				t.Fatal("decompressed into a tick less")
			}
		}
		// The same inputs as one handle of s bytes, when s is an input size.
		if s > MaxInputSize {
			return
		}
		m := Message{Header: Header{Kind: KindInput}, StartTick: 1, AckTick: 0, Handles: 1, InputSize: s}
		n, err := m.PackInputs(ref, inputs)
		if err != nil || len(inputs) > 0 && n == 0 {
			t.Fatalf("PackInputs = %d, %v", n, err)
		}
		pkt, err := Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		var got Message
		if err := Decode(pkt, &got); err != nil {
			t.Fatal(err)
		}
		out, err := got.UnpackInputs(nil, ref)
		if err != nil || !bytes.Equal(out, inputs[:n*s]) {
			t.Fatalf("packed and unpacked: %v\n% x\nwant\n% x", err, out, inputs[:n*s])
		}
		// It packed the most that fit: one tick more would not have.
		if n < min(len(inputs)/s, MaxTicksPerInput) {
			c, _ := CompressInputs(nil, ref, inputs[:(n+1)*s])
			if len(pkt)-got.InputsLen+len(c) <= MaxPacket {
				t.Fatalf("packed %d ticks in %d bytes, but %d fit in %d", n, len(pkt), n+1, len(pkt)-got.InputsLen+len(c))
			}
		}
	})
}

// TestWriteCorpus rewrites the seed corpora from sample() and a few damaged packets, when run
// with -update-corpus.
func TestWriteCorpus(t *testing.T) {
	if !*updateCorpus {
		t.Skip("run with -update-corpus to rewrite testdata/fuzz")
	}
	seeds := map[string][]byte{"empty": nil, "bad-magic": []byte("GET / HTTP/1.1\r\n")}
	for i, m := range sample() {
		pkt, err := Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%02d-%s", i, m.Kind)
		seeds[name] = pkt
		if m.Kind == KindInput && m.InputsLen > 0 {
			seeds[name+"-cut"] = pkt[:len(pkt)-1]
		}
	}
	ver := bytes.Clone(seeds["15-KeepAlive"])
	ver[2] = Version - 1
	seeds["version-previous"] = ver
	writeSeeds(t, "FuzzDecode", seeds, func(b []byte) string { return fmt.Sprintf("[]byte(%q)\n", b) })

	inputs := map[string][]byte{
		"repeat":  []byte("uint8(0)\n[]byte(\"\\x00\")\n[]byte(\"\\x01\\x01\\x01\\x01\\x02\\x02\")\n"),
		"stride8": []byte("uint8(7)\n[]byte(\"\")\n[]byte(\"abcdefghabcdefghabcdefgi\")\n"),
		"noise":   []byte("uint8(2)\n[]byte(\"\\xff\\x00\\x7f\")\n[]byte(\"\\x8a\\x01\\x00\\x00\\x00\\x13\\xee\\xee\\x00\")\n"),
	}
	writeSeeds(t, "FuzzInputs", inputs, func(b []byte) string { return string(b) })
}

func writeSeeds(t *testing.T, target string, seeds map[string][]byte, format func([]byte) string) {
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range seeds {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("go test fuzz v1\n"+format(b)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
