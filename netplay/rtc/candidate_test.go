package rtc

import "testing"

// TestBareCandidate: the candidate a browser's wrapper makes of one it cannot write as text is
// recognised, and no real candidate (nor the end of candidates, "") is taken for it.
func TestBareCandidate(t *testing.T) {
	for text, want := range map[string]bool{
		"candidate:": true, " candidate: ": true, "": false,
		"candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host": false,
	} {
		if got := bareCandidate(text); got != want {
			t.Errorf("bareCandidate(%q) = %v, want %v", text, got, want)
		}
	}
}
