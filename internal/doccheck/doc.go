// Package doccheck holds the tests that keep the documentation true. Every Go block in README.md
// and docs/ compiles: a whole program (package main) is built and run (one that imports
// Ebitengine only where there is a display: under xvfb-run, as scripts/test.sh runs the tests),
// and a fragment must appear, as written, in snippets_test.go (or another Go file), which
// compiles with the rest of the tests. Every shell command in them runs as pasted, from the
// repository's root, and exits 0 with output, but for the few that cannot run unattended (an
// interactive game, a command that needs root), each listed with the test that covers it
// instead.
package doccheck
