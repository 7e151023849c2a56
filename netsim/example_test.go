package netsim_test

import (
	"fmt"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// Two endpoints on a simulated network, one direction poor: a test moves the time on itself
// and polls, so a minute of traffic takes milliseconds and the same seed gives the same run.
func ExampleNetwork() {
	network := netsim.NewNetwork(1)
	alice, _ := network.Listen("alice")
	bob, _ := network.Listen("bob")
	poor, _ := netsim.Preset("poor")
	network.SetConditions("alice", "bob", poor)

	buf := make([]byte, netsim.MaxPacketSize)
	received := 0
	for tick := range 3600 { // a minute at 60 Hz
		alice.WriteTo([]byte{byte(tick)}, bob.LocalAddr())
		network.SetTime(time.Duration(tick+1) * time.Second / 60) // exact, unlike adding Second/60

		for {
			if _, _, ok := bob.TryReadFrom(buf); !ok {
				break
			}
			received++
		}
	}
	s := network.Stats("alice", "bob")
	// The rest are still in flight.
	fmt.Printf("sent %d, dropped %d, received %d by %v\n", s.Packets, s.Dropped, received, network.Now())
	// Output: sent 3600, dropped 177, received 3419 by 1m0s
}

// A Link alone: the model, handed the time each packet is sent. With jitter, packet 2 overtakes
// packet 1.
func ExampleLink() {
	link := netsim.NewLink(netsim.Conditions{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond, Loss: 0.05}, 7)
	for i := range 5 {
		sent := time.Duration(i) * 20 * time.Millisecond
		at, n := link.Send(sent, 64)
		if n == 0 {
			fmt.Printf("packet %d dropped\n", i)
			continue
		}
		fmt.Printf("packet %d sent at %v arrives at %v\n", i, sent, at[0].Round(time.Millisecond))
	}
	// Output:
	// packet 0 sent at 0s arrives at 80ms
	// packet 1 sent at 20ms arrives at 147ms
	// packet 2 sent at 40ms arrives at 115ms
	// packet 3 sent at 60ms arrives at 196ms
	// packet 4 sent at 80ms arrives at 223ms
}
