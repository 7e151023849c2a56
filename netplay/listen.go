package netplay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// AwaitHandshake waits on conn for the first handshake request of a session (see IsHandshake)
// and returns its sender's address: a host that waits for a player to join calls it, then
// makes its session with that address among Config.Players, on the same conn. Every other
// packet read meanwhile is ignored (a port scan, a stray packet of an earlier game). The
// handshake read is not lost to the game: the joining session sends its request again until
// it is answered. It returns ctx's error if ctx ends first, or the conn's error. It sets read
// deadlines on conn to notice ctx's end, and clears them before it returns.
func AwaitHandshake(ctx context.Context, conn net.PacketConn) (net.Addr, error) {
	var mu sync.Mutex
	returned := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !returned {
			_ = conn.SetReadDeadline(time.Unix(1, 0)) // ends the read under way
		}
	})
	defer func() {
		stop()
		mu.Lock()
		returned = true
		mu.Unlock()
		_ = conn.SetReadDeadline(time.Time{})
	}()
	buf := make([]byte, readBufSize)
	for {
		n, addr, err := conn.ReadFrom(buf)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			if isTimeout(err) && !errors.Is(err, net.ErrClosed) {
				continue // a deadline someone else set
			}
			return nil, fmt.Errorf("netplay: AwaitHandshake: %w", err)
		}
		if IsHandshake(buf[:n]) {
			return addr, nil
		}
	}
}
