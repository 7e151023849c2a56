package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzParseLine feeds the protocol's parser arbitrary lines. It must never panic, and every
// line must give either a command whose encoding parses back to the same command, or an error
// the server can send as it is: one line of printable ASCII, of bounded length, in the
// server's own words, repeating at most maxEcho bytes of the client's text (a prefix of one of
// its words, any byte not printable made a '?'), and nothing of how Go failed to read it.
//
// Run it with scripts/test.d/fuzz-matchserver.sh, or for longer:
//
//	go test -run='^$' -fuzz=FuzzParseLine -fuzztime=1000000x -fuzzminimizetime=200x ./cmd/matchserver
func FuzzParseLine(f *testing.F) {
	for _, seed := range []string{
		"START", "START 5", "start 18446744073709551615", "START 18446744073709551616", "START -1", "START +1",
		"START 0x10", "START 1 2", "INPUT left", "input RIGHT", "INPUT sideways", "INPUT", "INPUT up down",
		"END", "end now", "", "   ", "\t", "HELLO", strings.Repeat("A", 300), "\x1b[2J\"\xff", "START\t\t7\r",
		"ſtart 1", "INPUT \xff\xfe", "START ١٢",
	} {
		f.Add(seed)
	}
	messages := []string{msgEmpty, msgUnknown, msgSeed, msgStartArgs, msgNoKey, msgUnknownKey, msgInputArgs, msgEndArgs}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := parseLine(line)
		if err == nil {
			if c.verb < verbStart || c.verb > verbEnd || c.verb == verbInput && keys[c.key] == 0 {
				t.Fatalf("%q parsed to %+v", line, c)
			}
			again, err := parseLine(c.String())
			if err != nil || again != c {
				t.Fatalf("%q parsed to %+v, encoded as %q, which parses to %+v, %v", line, c, c.String(), again, err)
			}
			return
		}
		var pe *protocolError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error %v is not a *protocolError", line, err)
		}
		if !slices.Contains(messages, pe.msg) {
			t.Fatalf("%q: message %q is not one of the server's own", line, pe.msg)
		}
		echo := pe.echo
		if len(echo) > maxEcho {
			// Cut: maxEcho bytes and "...".
			if cut, ok := strings.CutSuffix(echo, "..."); !ok || len(cut) != maxEcho {
				t.Fatalf("%q: echoes %q, more than %d bytes", line, pe.echo, maxEcho)
			}
			echo = echo[:maxEcho]
		}
		if echo != "" && !echoesAWord(echo, line) {
			t.Fatalf("%q: echoes %q, which is not the start of one of its words", line, echo)
		}
		msg := err.Error()
		if len(msg) > 120 {
			t.Fatalf("%q: an answer of %d bytes: %q", line, len(msg), msg)
		}
		for i := range len(msg) {
			if msg[i] < 0x20 || msg[i] > 0x7e {
				t.Fatalf("%q: answer %q has byte %#x", line, msg, msg[i])
			}
		}
		for _, internal := range []string{"strconv", "parsing", "invalid syntax", "out of range", "ParseUint"} {
			if strings.Contains(msg, internal) {
				t.Fatalf("%q: answer %q shows Go's own error", line, msg)
			}
		}
	})
}

// echoesAWord reports whether echo is the sanitised start (see sanitisedPrefix) of a word of
// line: of line[i:] where i is 0 or follows a space, tab or CR.
func echoesAWord(echo, line string) bool {
	for i := range len(line) {
		if (i == 0 || strings.IndexByte(" \t\r", line[i-1]) >= 0) && sanitisedPrefix(echo, line[i:]) {
			return true
		}
	}
	return false
}

// sanitisedPrefix reports whether echo is the start of word with the bytes that are not
// printable ASCII, quotes and backslashes made '?'.
func sanitisedPrefix(echo, word string) bool {
	if len(echo) > len(word) {
		return false
	}
	for i := range len(echo) {
		c := word[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			c = '?'
		}
		if echo[i] != c {
			return false
		}
	}
	return true
}
