//go:build !(js && wasm)

// Command wasm is bounce in a web page: it runs in the browser, compiled to WebAssembly, and
// go run ./cmd/bounceweb builds it and serves it with its page.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "this is the browser's part of bounce: run go run ./cmd/bounceweb, which builds it with GOOS=js GOARCH=wasm and serves it")
	os.Exit(2)
}
