//go:build !(js && wasm)

// Command example is a whole game for the browser on backend/web; it runs only there, built
// with GOOS=js GOARCH=wasm: see docs/web.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "this game runs in a browser: build it with GOOS=js GOARCH=wasm and serve it (see docs/web.md)")
	os.Exit(2)
}
