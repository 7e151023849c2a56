package wire

import (
	"strconv"
	"testing"
)

// typicalInput is the Input a peer of a two-player session sends each tick with eight ticks
// unacknowledged: its one local player's inputs of size bytes, pressed and released every few
// ticks (and, from 2 bytes on, a stick that moves a little every tick).
func typicalInput(size int) (m Message, ref, inputs []byte) {
	m = Message{Header: Header{Kind: KindInput, Session: 0x5EED1234, Seq: 4321},
		StartTick: 36_000, AckTick: 35_996, Handles: 0b01, InputSize: size, Players: 2,
		Status: [MaxPlayers]PlayerStatus{{LastTick: 36_007}, {LastTick: 35_996}}}
	ref = make([]byte, size)
	inputs = make([]byte, 8*size)
	for k := range 8 {
		in := inputs[k*size : (k+1)*size]
		in[0] = byte(k / 3) // buttons: changes every third tick
		if size >= 2 {
			in[1] = byte(100 + k) // a stick moving
		}
	}
	return m, ref, inputs
}

func BenchmarkInput(b *testing.B) {
	for _, size := range []int{1, 8} {
		m, ref, inputs := typicalInput(size)
		buf := make([]byte, 0, MaxPacket)
		b.Run("size="+strconv.Itoa(size)+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.PackInputs(ref, inputs); err != nil {
					b.Fatal(err)
				}
				var err error
				if buf, err = Append(buf[:0], &m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(buf)), "bytes/packet")
			b.ReportMetric(float64(len(inputs)), "input-bytes/packet")
		})
		b.Run("size="+strconv.Itoa(size)+"/decode", func(b *testing.B) {
			pkt, _ := Append(nil, &m)
			var got Message
			out := make([]byte, 0, len(inputs))
			b.ReportAllocs()
			for b.Loop() {
				if err := Decode(pkt, &got); err != nil {
					b.Fatal(err)
				}
				var err error
				if out, err = got.UnpackInputs(out[:0], ref); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(pkt)), "bytes/packet")
		})
	}
}

// BenchmarkPackInputsFull packs inputs that fill a packet many times over: 128 ticks of eight
// handles' 32-byte inputs, each tick changing a few bytes, so that PackInputs must search for
// the most ticks that fit.
func BenchmarkPackInputsFull(b *testing.B) {
	const stride = 8 * 32
	inputs := make([]byte, MaxTicksPerInput*stride)
	for k := range MaxTicksPerInput {
		copy(inputs[k*stride:], inputs[max(k-1, 0)*stride:][:stride])
		inputs[k*stride+(k*37)%stride] = byte(k + 1)
		inputs[k*stride+(k*101)%stride] ^= 0x5A
	}
	m := Message{Header: Header{Kind: KindInput}, StartTick: 1, Handles: 0xFF, InputSize: 32, Players: 8}
	ref := make([]byte, stride)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		var err error
		if n, err = m.PackInputs(ref, inputs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "ticks/packet")
}
