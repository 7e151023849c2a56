package wire

import "math"

// CompressInputs appends to dst the compressed form of inputs and returns the extended slice.
// inputs is a run of ticks, each len(ref) bytes (one input of every handle carried); ref is the
// tick before the first as the receiver has it (zeros if it has none). Each tick is XORed with
// the tick before it (the first with ref), so that an input that repeats becomes zeros, and the
// result is run-length encoded (see the package documentation for the exact format). It
// returns an error wrapping ErrInvalid if ref is empty or inputs is not whole ticks of it.
// Incompressible inputs grow by one byte in 128; the compressed form never depends on dst.
// It allocates only if dst lacks the room.
func CompressInputs(dst, ref, inputs []byte) ([]byte, error) {
	if len(ref) == 0 || len(inputs)%len(ref) != 0 {
		return dst, errInputsShape
	}
	out, _, _ := compress(dst, math.MaxInt, ref, inputs)
	return out, nil
}

// DecompressInputs fills dst with the inputs that src, as CompressInputs wrote it against the
// same ref, holds: len(dst) bytes, whole ticks of len(ref). It returns an error wrapping
// ErrInvalid if ref is empty or dst not whole ticks of it, and one wrapping ErrMalformed if src
// does not hold exactly len(dst) bytes of inputs (what dst then holds is unspecified). It
// allocates nothing.
func DecompressInputs(dst, ref, src []byte) error {
	if len(ref) == 0 || len(dst)%len(ref) != 0 {
		return errInputsShape
	}
	if n, ok := expand(dst, ref, src, len(dst)); !ok || n != len(dst) {
		return faultInputs.malformed
	}
	return nil
}

// The run-length tokens.
const (
	litMax   = 0x80 // a literal token 0x00-0x7F: c+1 bytes follow
	zeroBase = 0x80 // a zero token 0x80-0xFE: c-0x7F zero bytes
	zeroLong = 0xFF // a long zero token 0xFF: 128+uvarint zero bytes
	zeroMax  = zeroLong - zeroBase
)

// xorAt returns byte k of the XORed stream: the input XORed with the same byte of the tick
// before.
func xorAt(ref, in []byte, k int) byte {
	if k < len(ref) {
		return in[k] ^ ref[k]
	}
	return in[k] ^ in[k-len(ref)]
}

// compress appends the compressed form of in to dst while dst stays within limit bytes. If the
// whole does not fit, it fills the room with as much of in as fits (a literal or a zero run cut
// short where the room ends) and reports false, with the number of bytes of in that what it
// appended holds.
func compress(dst []byte, limit int, ref, in []byte) ([]byte, int, bool) {
	n := len(in)
	for i := 0; i < n; {
		j := i
		for j < n && xorAt(ref, in, j) == 0 {
			j++
		}
		if z := j - i; z >= 2 || z == 1 && j == n {
			if len(dst)+1 > limit {
				return dst, i, false
			}
			if z <= zeroMax {
				dst = append(dst, byte(zeroBase+z-1))
			} else if r := limit - len(dst); 1+uvarintLen(uint64(z-zeroMax-1)) > r {
				// The longest run the room holds: 127 zeros in one byte, or 128 and the
				// most a uvarint of the bytes left holds.
				if r == 1 {
					return append(dst, zeroBase+zeroMax-1), i + zeroMax, false
				}
				most := uint64(1)<<(7*(r-1)) - 1
				return appendUvarint(append(dst, zeroLong), most), i + zeroMax + 1 + int(most), false
			} else {
				dst = append(dst, zeroLong)
				dst = appendUvarint(dst, uint64(z-zeroMax-1))
			}
			i = j
			continue
		}
		// A literal: up to litMax bytes, ending before two zeros in a row.
		for j = i + 1; j < n && j-i < litMax; j++ {
			if xorAt(ref, in, j) == 0 && j+1 < n && xorAt(ref, in, j+1) == 0 {
				break
			}
		}
		full := len(dst)+1+j-i > limit
		if full {
			if len(dst)+2 > limit {
				return dst, i, false
			}
			j = i + limit - len(dst) - 1
		}
		dst = append(dst, byte(j-i-1))
		for k := i; k < j; k++ {
			dst = append(dst, xorAt(ref, in, k))
		}
		if full {
			return dst, j, false
		}
		i = j
	}
	return dst, n, true
}

// expand decodes the tokens of src into dst (when dst is not nil), XORing each byte with the
// same byte of the tick before (ref for the first tick), and returns how many bytes it holds.
// It reports false if src is not a sequence of whole tokens or holds more than limit bytes.
func expand(dst, ref, src []byte, limit int) (int, bool) {
	n := 0
	for i := 0; i < len(src); {
		c := src[i]
		i++
		switch {
		case c < litMax:
			run := int(c) + 1
			if run > len(src)-i || run > limit-n {
				return n, false
			}
			if dst != nil {
				for k := range run {
					dst[n+k] = src[i+k] ^ prevAt(dst, ref, n+k)
				}
			}
			i += run
			n += run
		default:
			run := int(c) - zeroBase + 1
			if c == zeroLong {
				v, w := uvarint(src[i:])
				if w <= 0 || v > uint64(limit) {
					return n, false
				}
				i += w
				run = zeroMax + 1 + int(v)
			}
			if run > limit-n {
				return n, false
			}
			if dst != nil {
				for k := range run {
					dst[n+k] = prevAt(dst, ref, n+k)
				}
			}
			n += run
		}
	}
	return n, true
}

// prevAt returns the byte at k of the tick before, in a stream being decoded into dst.
func prevAt(dst, ref []byte, k int) byte {
	if k < len(ref) {
		return ref[k]
	}
	return dst[k-len(ref)]
}

// expandedLen returns how many bytes the tokens of src hold, reporting false if they are not
// whole tokens or hold more than limit.
func expandedLen(src []byte, limit int) (int, bool) { return expand(nil, nil, src, limit) }

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
