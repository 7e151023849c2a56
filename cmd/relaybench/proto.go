package main

// The relay's protocol as the simulated players speak it: the few packets they send and read,
// encoded by hand from the format netplay's wire package documents (version 3). The relay
// decodes them with that package: a mistake here is a refusal counted there, which the
// benchmark checks for.

import (
	"encoding/binary"
	"errors"
)

const (
	wireVersion = 4
	kindInput   = 3
	kindCookie  = 13
	kindJoin    = 14
	kindWelcome = 15
	kindRefused = 16
	headerSize  = 10
)

// header appends a packet's header.
func header(b []byte, kind byte, session uint32, seq uint16) []byte {
	b = append(b, 0xE7, 'N', wireVersion, kind)
	b = binary.LittleEndian.AppendUint32(b, session)
	return binary.LittleEndian.AppendUint16(b, seq)
}

// appendJoin appends a Join for slot of match, a game of players with 1-byte inputs at hz.
func appendJoin(b []byte, nonce, cookie uint32, match string, slot, players, hz int) []byte {
	b = header(b, kindJoin, nonce, 0)
	b = binary.LittleEndian.AppendUint32(b, nonce)
	b = binary.LittleEndian.AppendUint32(b, cookie)
	b = append(b, byte(slot), byte(players), 1)
	b = binary.AppendUvarint(b, uint64(hz))
	b = append(b, byte(len(match)))
	b = append(b, match...)
	return append(b, 0, 0) // no token, no flags
}

// appendInput appends an Input of slot's input in for count ticks (1 to 127) from tick,
// acknowledging the relay's ticks up to ack (-1: none).
func appendInput(b []byte, session uint32, seq uint16, slot int, tick uint64, count int, ack int64, in byte) []byte {
	b = header(b, kindInput, session, seq)
	b = binary.AppendUvarint(b, tick)
	b = binary.AppendUvarint(b, uint64(ack+1))
	b = append(b, 1<<slot, 1, byte(count), 0, 0) // handles, size, count, players, disconnected
	// Each tick XORed with the one before, the first with a reference of zeros: the first a
	// literal (or a zero), the rest zeros, as zero tokens (0x7F+n: n zeros).
	zeros := count - 1
	if in == 0 {
		zeros = count
	} else {
		b = append(b, 0x00, in)
	}
	if zeros > 0 {
		b = append(b, byte(0x7F+zeros))
	}
	return b
}

// answer is what a packet from the relay says to a joining player.
type answer struct {
	kind    byte
	session uint32
	nonce   uint32 // Welcome's and Refused's
	cookie  uint32 // Cookie's
	reason  byte   // Refused's
}

var errNotAnswer = errors.New("not a relay's answer to a join")

// parseAnswer reads a Cookie, Welcome or Refused.
func parseAnswer(p []byte) (answer, error) {
	if len(p) < headerSize+4 || p[0] != 0xE7 || p[1] != 'N' || p[2] != wireVersion {
		return answer{}, errNotAnswer
	}
	a := answer{kind: p[3], session: binary.LittleEndian.Uint32(p[4:])}
	body := p[headerSize:]
	switch a.kind {
	case kindCookie:
		a.cookie = binary.LittleEndian.Uint32(body)
	case kindWelcome:
		a.nonce = binary.LittleEndian.Uint32(body)
	case kindRefused:
		if len(body) < 5 {
			return answer{}, errNotAnswer
		}
		a.nonce, a.reason = binary.LittleEndian.Uint32(body), body[4]
	default:
		return answer{}, errNotAnswer
	}
	return a, nil
}
