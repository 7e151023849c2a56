//go:build !js

package rtc_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// Two peers meet in a room of a lobby and exchange a datagram over their data channel. Here
// they are two goroutines of one program, and the lobby runs in it too; in a game each peer
// is a program (or a web page) and the lobby is cmd/lobby.
func ExampleDial() {
	l, err := lobby.New(lobby.Config{})
	if err != nil {
		log.Fatal(err)
	}
	server := httptest.NewServer(l)
	defer server.Close()
	defer l.Close(context.Background())
	url := "ws" + strings.TrimPrefix(server.URL, "http") // ws://127.0.0.1:PORT

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conns := make(chan *rtc.Conn, 2)
	for range 2 {
		go func() {
			conn, err := rtc.Dial(ctx, url, "duel", 2, nil)
			if err != nil {
				log.Fatal(err)
			}
			conns <- conn
		}()
	}
	a, b := <-conns, <-conns
	defer a.Close()
	defer b.Close()
	if a.Index() == 1 {
		a, b = b, a // a is member 0, b member 1: the order they joined in
	}

	// Datagrams may be lost, as UDP's: send until one arrives.
	buf := make([]byte, rtc.MaxDatagram)
	for {
		if _, err := b.WriteTo([]byte("hello"), b.PeerAddr(0)); err != nil {
			log.Fatal(err)
		}
		a.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, from, err := a.ReadFrom(buf)
		if err == nil {
			fmt.Printf("member %d of %d got %q from %v\n", a.Index(), a.Size(), buf[:n], from)
			break
		}
	}
	// Output: member 0 of 2 got "hello" from rtc:duel/1
}
