package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gameloop-go/gameloop/internal/duel"
)

// A message longer than the canvas's row ends there with an ellipsis; one that fits is kept.
func TestFitRow(t *testing.T) {
	long := `joining room "a room with a long name" at ws://192.0.2.1:8090/ws: waiting for the other player`
	got := fitRow(long, duel.ViewWidth)
	if n := utf8.RuneCountInString(got); n != duel.ViewWidth || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("fitRow(%q) = %q (%d characters): want its first %d and an ellipsis", long, got, n, duel.ViewWidth-1)
	}
	for _, s := range []string{"", "playing: the left paddle is yours", strings.Repeat("é", duel.ViewWidth)} {
		if got := fitRow(s, duel.ViewWidth); got != s {
			t.Errorf("fitRow(%q) = %q: want it as it is", s, got)
		}
	}
}
