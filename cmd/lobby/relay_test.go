package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
)

// counter is a game: a sum of every player's inputs, tick by tick.
type counter struct {
	sum   uint64
	slots []uint64
}

func (g *counter) LocalInput(int) byte { return 1 }

func (g *counter) Step(tick uint64, in []netplay.PlayerInput[byte]) error {
	for h, p := range in {
		g.sum = g.sum*31 + uint64(p.Input)*uint64(h+1) + tick
	}
	return nil
}

func (g *counter) Save(slot int) uint64 { g.slots[slot] = g.sum; return g.sum }
func (g *counter) Load(slot int)        { g.sum = g.slots[slot] }

type byteCodec struct{}

func (byteCodec) Size() int               { return 1 }
func (byteCodec) Put(dst []byte, in byte) { dst[0] = in }
func (byteCodec) Get(src []byte) byte     { return src[0] }

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
				s, err := netplay.NewSession(net.PacketConn(conn), netplay.Config[byte]{Players: players, Codec: byteCodec{}, Relay: relay, Match: "final"})
				if err != nil {
					return err
				}
				defer s.Close()
				g := &counter{slots: make([]uint64, s.Slots())}
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
