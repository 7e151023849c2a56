package wire_test

import (
	"fmt"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// A peer sends its local player's inputs of ticks 10 to 13 (one byte each); the other peer last
// acknowledged tick 9, whose input it has, so that is the reference both compress against.
func ExampleAppend() {
	ref := []byte{0x00}                      // tick 9, as the receiver has it
	inputs := []byte{0x00, 0x01, 0x01, 0x01} // ticks 10-13
	m := wire.Message{Header: wire.Header{Kind: wire.KindInput, Session: 0xC0FFEE, Seq: 1},
		StartTick: 10, AckTick: 20, Handles: 0b10, InputSize: 1}
	n, err := m.PackInputs(ref, inputs)
	if err != nil {
		panic(err)
	}
	pkt, err := wire.Append(nil, &m)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d ticks in %d bytes\n", n, len(pkt))

	// The receiver.
	var got wire.Message
	if err := wire.Decode(pkt, &got); err != nil {
		panic(err) // a real peer drops the packet and counts it
	}
	out, err := got.UnpackInputs(nil, ref)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Kind, "ticks", got.StartTick, "to", got.StartTick+int64(got.Count)-1, "of handle 1:", out)
	// Output:
	// 4 ticks in 21 bytes
	// Input ticks 10 to 13 of handle 1: [0 1 1 1]
}
