package relay_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/relay"
)

// A relay with keys, serving on a UDP socket, its matches on a pool. Whoever makes matches
// (a matchmaker) shares the key with the relay and gives each player a token for its slot;
// the players' sessions set Config.Relay, Match and Token. Serve runs until its context ends,
// then ends every match, telling the players.
func ExampleNew() {
	key := []byte("a key of 32 bytes, from a vault.")
	conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	r, err := relay.New(conn, pool, &relay.Options{Keys: map[byte][]byte{1: key}})
	if err != nil {
		log.Fatal(err)
	}
	if err := r.CreateMatch("final-7", relay.MatchConfig{Players: 2, InputSize: 1, TickRate: 60}); err != nil {
		log.Fatal(err)
	}
	// The matchmaker's side: a token for each slot, good for an hour.
	for slot := range 2 {
		tok, err := relay.MakeToken(key, 1, "final-7", slot, time.Now().Add(time.Hour))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("slot %d: a token of %d bytes\n", slot, len(tok))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = r.Serve(ctx) // until the players have played, in a real server
	fmt.Println(err, r.Matches())
	// Output:
	// slot 0: a token of 35 bytes
	// slot 1: a token of 35 bytes
	// context deadline exceeded []
}
