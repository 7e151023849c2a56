package main

import (
	"strconv"
	"strings"

	"github.com/gameloop-go/gameloop"
)

// maxLine is the longest line a client may send, in bytes, its newline included: a longer
// one closes the connection.
const maxLine = 256

// maxEcho is the most bytes of a client's own text an error answer repeats.
const maxEcho = 16

// verb is what a command asks.
type verb int

const (
	verbStart verb = iota + 1
	verbInput
	verbEnd
)

// command is a line of the protocol, parsed.
type command struct {
	verb    verb
	seed    uint64 // START's seed, if hasSeed
	hasSeed bool
	key     string // INPUT's key: one of keyNames
}

var keys = map[string]gameloop.Key{
	"left": gameloop.KeyLeft, "right": gameloop.KeyRight, "up": gameloop.KeyUp, "down": gameloop.KeyDown,
}

// String encodes the command as a line of the protocol (without its newline), which parses
// back to the same command.
func (c command) String() string {
	switch c.verb {
	case verbStart:
		if c.hasSeed {
			return "START " + strconv.FormatUint(c.seed, 10)
		}
		return "START"
	case verbInput:
		return "INPUT " + c.key
	case verbEnd:
		return "END"
	}
	return "?"
}

// protocolError is a line a client sent that is not a command. Its answer is one of a fixed
// set of messages and at most maxEcho bytes of the client's text, made printable: never the
// client's line itself, nor how Go failed to read it.
type protocolError struct {
	msg  string // what is wrong, from the server's own words; "%s" marks where echo goes
	echo string // a sanitised prefix of the word at fault
}

func (e *protocolError) Error() string {
	if !strings.Contains(e.msg, "%s") {
		return e.msg
	}
	return strings.Replace(e.msg, "%s", `"`+e.echo+`"`, 1)
}

// errorf returns a protocolError for word, quoted in msg where it has %s.
func errorf(msg, word string) *protocolError { return &protocolError{msg: msg, echo: sanitise(word)} }

// sanitise returns at most maxEcho bytes of s, with every byte that is not printable ASCII
// (and every quote and backslash) made a '?', and "..." if it was cut.
func sanitise(s string) string {
	cut := len(s) > maxEcho
	b := []byte(s[:min(len(s), maxEcho)])
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = '?'
		}
	}
	if cut {
		b = append(b, "..."...)
	}
	return string(b)
}

// The messages of protocolErrors.
const (
	msgEmpty      = "an empty line: send START [seed], INPUT key or END"
	msgUnknown    = "unknown command %s: send START [seed], INPUT key or END"
	msgSeed       = "START's seed must be a number from 0 to 18446744073709551615, not %s"
	msgStartArgs  = "START takes one seed at most"
	msgNoKey      = "INPUT takes a key: left, right, up or down"
	msgUnknownKey = "unknown key %s: INPUT takes left, right, up or down"
	msgInputArgs  = "INPUT takes one key"
	msgEndArgs    = "END takes nothing after it"
)

// parseLine parses a line of the protocol (without its newline). Commands and keys may be in
// any case; words are separated by spaces or tabs.
func parseLine(line string) (command, error) {
	words := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' })
	if len(words) == 0 {
		return command{}, &protocolError{msg: msgEmpty}
	}
	switch strings.ToUpper(words[0]) {
	case "START":
		switch len(words) {
		case 1:
			return command{verb: verbStart}, nil
		case 2:
			seed, err := strconv.ParseUint(words[1], 10, 64)
			if err != nil {
				return command{}, errorf(msgSeed, words[1])
			}
			return command{verb: verbStart, seed: seed, hasSeed: true}, nil
		}
		return command{}, &protocolError{msg: msgStartArgs}
	case "INPUT":
		switch len(words) {
		case 1:
			return command{}, &protocolError{msg: msgNoKey}
		case 2:
			key := strings.ToLower(words[1])
			if _, ok := keys[key]; !ok {
				return command{}, errorf(msgUnknownKey, words[1])
			}
			return command{verb: verbInput, key: key}, nil
		}
		return command{}, &protocolError{msg: msgInputArgs}
	case "END":
		if len(words) > 1 {
			return command{}, &protocolError{msg: msgEndArgs}
		}
		return command{verb: verbEnd}, nil
	}
	return command{}, errorf(msgUnknown, words[0])
}
