package glfw

import (
	"testing"

	"github.com/gameloop-go/gameloop"
)

func TestKeysRoundTrip(t *testing.T) {
	for k := gameloop.KeyUnknown + 1; k <= gameloop.KeyLast; k++ {
		g, ok := fromKey(k)
		if !ok {
			t.Errorf("%v has no GLFW key", k)
			continue
		}
		if back := toKey(g); back != k {
			t.Errorf("%v -> GLFW %d -> %v", k, g, back)
		}
	}
	if _, ok := fromKey(gameloop.KeyUnknown); ok {
		t.Error("KeyUnknown maps to a GLFW key")
	}
}
