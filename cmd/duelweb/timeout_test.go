//go:build !(js && wasm)

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gameloop-go/gameloop/internal/wasmsite"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// guard bounds a wait: it fails a test that hangs, and never decides a pass.
const guard = 2 * time.Minute

// TestSlowClient: a client that asks for the game and does not read is cut off once a write of
// the response has waited -write-timeout (its connection closed by the server, the game not
// sent whole); the lobby's WebSockets are not bound by the timeout.
func TestSlowClient(t *testing.T) {
	dir := t.TempDir()
	const size = 64 << 20 // far more than a socket's buffers hold
	wasm := filepath.Join(dir, "duel.wasm")
	f, err := os.Create(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	wasmExec := filepath.Join(dir, "wasm_exec.js")
	if err := os.WriteFile(wasmExec, []byte("// wasm_exec.js"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := site{&wasmsite.Site{Wasm: wasm, WasmExec: wasmExec, Name: "duel.wasm", Page: indexHTML}}
	l, err := lobby.New(lobby.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opts := options{writeTimeout: 100 * time.Millisecond}
	srv := newServer(s, l, http.NotFoundHandler(), opts)
	closed := make(chan string, 100)
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- c.RemoteAddr().String()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		l.Close(ctx)
		srv.Close()
	})
	addr := ln.Addr().String()

	// The WebSocket outlives the write timeout: the lobby answers a join sent long after it.
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /duel.wasm HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	wait := time.NewTimer(guard)
	defer wait.Stop()
	for gone := false; !gone; {
		select {
		case a := <-closed:
			gone = a == c.LocalAddr().String()
		case <-wait.C:
			t.Fatal("the server did not close the connection of a client that does not read")
		}
	}
	c.SetReadDeadline(time.Now().Add(guard))
	if n, err := io.Copy(io.Discard, c); err != nil || n >= size {
		t.Errorf("the client that did not read then read %d bytes (%v): want less than the %d of the game, then the end", n, err, size)
	}

	// The WebSocket has lived past the write timeout of every write above.
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","room":"r","size":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"joined"`) {
		t.Errorf("the lobby after the write timeout: %s, %v", b, err)
	}

}
