//go:build !(js && wasm)

package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad flags are refused before anything is built, with exit status 2; -h exits 0.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-nosuchflag"}, 2, "flag provided but not defined: -nosuchflag"},
		{[]string{"extra"}, 2, "unexpected arguments"},
		{[]string{"-h"}, 0, "-listen address"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.want) || stdout.Len() > 0 {
			t.Errorf("duelweb %q: exit status %d, stdout %q, stderr %q; want %d and %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.want)
		}
	}
}
