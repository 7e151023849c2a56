//go:build !js

package rtc_test

import (
	"context"
	"log"
	"time"

	"github.com/gameloop-go/gameloop/netplay/rtc"
)

// Peers behind NAT on different networks: a STUN server tells each its public address, and a
// TURN server relays for those whose NAT lets nothing in unasked. (Not run: the servers here
// are examples.)
func ExampleOptions() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, room := "wss://lobby.example.com/ws", "duel"
	conn, err := rtc.Dial(ctx, url, room, 2, &rtc.Options{ICEServers: []rtc.ICEServer{
		{URLs: []string{"stun:stun.example.com:3478"}},
		{URLs: []string{"turn:turn.example.com:3478?transport=udp"}, Username: "user", Credential: "secret"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}
