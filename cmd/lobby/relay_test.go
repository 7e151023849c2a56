package main

import (
	"context"
	"errors"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
)

// TestRelay: with -relay, the lobby hands a room to a relay when its players ask (POST
// /relay?room=NAME): the relay joins it as its third member, and two players that find it
// (netplay.FindRelay) play through it, agreeing on the checksum of tick 120.
func TestRelay(t *testing.T) {
	addr, _, _, _ := start(t, "-relay")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := http.Post("http://"+addr+"/relay?room=final", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /relay: %s", resp.Status)
	}
	if resp, err := http.Post("http://"+addr+"/relay?room=", "", nil); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST /relay with no room: %v, %v", resp, err)
	}
	sums := make([]uint64, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = func() error {
				conn, err := rtc.Dial(ctx, "ws://"+addr+"/ws", "final", 3, nil)
				if err != nil {
					return err
				}
				defer conn.Close()
				var others []net.Addr
				for m := range conn.Size() {
					if m != conn.Index() {
						others = append(others, conn.PeerAddr(m))
					}
				}
				slot, relay, err := netplay.FindRelay(ctx, conn, others, "final", nil, 2, 1, 60)
				if err != nil {
					return err
				}
				players := make([]netplay.Player, 2)
				players[slot].Local = true
				s, err := netplay.NewSession(net.PacketConn(conn), netplay.Config[byte]{Players: players, Codec: relaytest.ByteCodec{}, Relay: relay, Match: "final"})
				if err != nil {
					return err
				}
				defer s.Close()
				g := relaytest.NewGame(s.Slots())
				start := time.Now()
				tick := time.NewTicker(time.Second / 60)
				defer tick.Stop()
				for range tick.C {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					s.AddLocalInput(slot, 1)
					reqs, err := s.Advance(time.Since(start))
					switch {
					case errors.Is(err, netplay.ErrPredictionThreshold), errors.Is(err, netplay.ErrNotSynchronized):
						continue
					case err != nil:
						return err
					}
					if err := netplay.Run(reqs, g); err != nil {
						return err
					}
					if sum, ok := s.Checksum(120); ok && s.Stats().Confirmed >= 120 {
						sums[slot] = sum
						return nil
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
	}
	if sums[0] == 0 || sums[0] != sums[1] {
		t.Fatalf("tick 120: %#x and %#x", sums[0], sums[1])
	}
}
