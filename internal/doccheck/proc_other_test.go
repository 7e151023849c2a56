//go:build !unix

package doccheck_test

import "os/exec"

// ownGroup does nothing here: without process groups, only the command itself is killed when
// its context ends.
func ownGroup(*exec.Cmd) (kill func()) { return func() {} }
