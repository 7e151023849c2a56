//go:build !(js && wasm)

// Command page is the duel's web page: it runs in the browser, compiled to WebAssembly, and
// go run ./cmd/duelweb builds it and serves it with its page and a lobby.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "this is the browser's part of duel: run go run ./cmd/duelweb, which builds it with GOOS=js GOARCH=wasm and serves it")
	os.Exit(2)
}
