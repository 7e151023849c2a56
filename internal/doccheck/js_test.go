package doccheck_test

import (
	"strings"
	"testing"
)

// TestJSSnippets checks every JavaScript block of the documents: each must be, as written, in a
// Go file of the repository, where a browser test runs it (docs/web.md's scripted gamepad is
// cmd/bounceweb's TestBrowserGamepad's).
func TestJSSnippets(t *testing.T) {
	haystack := squeeze(goSources(t))
	n := 0
	for _, doc := range docs(t) {
		for _, b := range blocks(t, doc) {
			if b.info != "js" && b.info != "javascript" {
				continue
			}
			n++
			if !strings.Contains(haystack, squeeze(b.text)) {
				t.Errorf("%s: this JavaScript is in no Go file, so no browser test runs it; take it from the test that does, as written:\n%s", b.where, b.text)
			}
		}
	}
	if n == 0 {
		t.Fatal("no JavaScript block found: the documents have moved?")
	}
}
