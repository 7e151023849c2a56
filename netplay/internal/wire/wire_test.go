package wire

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// sample returns one valid message of every kind, with values at the edges of their ranges.
func sample() []Message {
	hdr := func(k Kind) Header { return Header{Kind: k, Session: 0xDEADBEEF, Seq: 0xFFFF} }
	full := Message{Header: hdr(KindInput), StartTick: MaxTick - 1, AckTick: MaxTick,
		Handles: 0b1000_0001, InputSize: 2, Players: MaxPlayers, Lost: 0xFF, Quiet: 0b0100_0010}
	for i := range full.Status {
		full.Status[i] = PlayerStatus{Disconnected: i%3 == 0, LastTick: int64(i)*1000 - 1}
	}
	full.Status[7].LastTick = MaxTick
	if _, err := full.PackInputs([]byte{1, 2, 3, 4}, []byte{1, 2, 3, 4, 0, 0, 9, 9}); err != nil {
		panic(err)
	}
	return []Message{
		{Header: hdr(KindSyncRequest), Nonce: 0x01020304},
		{Header: Header{Kind: KindSyncReply}, Nonce: math.MaxUint32},
		{Header: hdr(KindInput), StartTick: 0, AckTick: NoTick, Handles: 1, InputSize: 1},
		{Header: hdr(KindInput), AckTick: 5, InputSize: MaxInputSize, Players: 2,
			Status: [MaxPlayers]PlayerStatus{{LastTick: NoTick}, {Disconnected: true, LastTick: 7}}},
		{Header: hdr(KindInput), AckTick: 5, InputSize: 1, Players: 3, Lost: 0b100},
		{Header: hdr(KindInput), AckTick: 5, InputSize: 1, Players: 3, Quiet: 0b010},
		full,
		{Header: hdr(KindInputAck), AckTick: NoTick},
		{Header: hdr(KindInputAck), AckTick: MaxTick},
		{Header: hdr(KindQualityReport), TicksAhead: math.MinInt32, PingSent: math.MinInt64},
		{Header: hdr(KindQualityReport), TicksAhead: math.MaxInt32, PingSent: math.MaxInt64},
		{Header: hdr(KindQualityReport), TicksAhead: -3, PingSent: 123456789},
		{Header: hdr(KindQualityReply), PingSent: 1},
		{Header: hdr(KindChecksumReport), Tick: MaxTick, Sum: math.MaxUint64},
		{Header: hdr(KindChecksumReport), Tick: 0, Sum: 0},
		{Header: hdr(KindKeepAlive)},
		{Header: hdr(KindBye)},
		{Header: hdr(KindKick)},
		{Header: hdr(KindSpectate), Nonce: 7},
		{Header: hdr(KindSpectate), Nonce: 7, Cookie: math.MaxUint32},
		{Header: hdr(KindInput), AckTick: 5, InputSize: 1, Players: 3, Lost: 0b100, Quiet: 0b001, Kicked: 0b010},
		{Header: hdr(KindInput), AckTick: 5, InputSize: 1, Players: 3, Joined: [MaxPlayers]int64{0, 300, MaxTick},
			Status: [MaxPlayers]PlayerStatus{{LastTick: 9}, {LastTick: 9}, {Disconnected: true, LastTick: NoTick}}},
		{Header: hdr(KindDropped), Cutoff: NoTick},
		{Header: hdr(KindDropped), Cutoff: MaxTick, DropFlags: DroppedSilent | DroppedKicked},
		{Header: hdr(KindDropped), Cutoff: 173, DropFlags: DroppedKicked},
		{Header: hdr(KindCookie), Cookie: 0xdeadbeef},
		join(Message{Header: hdr(KindJoin), Nonce: 1, Slot: 7, Players: MaxPlayers, InputSize: MaxInputSize, TickRate: MaxTickRate}, "", nil),
		join(Message{Header: hdr(KindJoin), Nonce: 2, Cookie: 3, Slot: AnySlot, Players: 2, InputSize: 1, TickRate: 60},
			"a match named with sixty-four bytes, the longest that can be.!!", bytes.Repeat([]byte{0xA5}, MaxToken)),
		join(Message{Header: hdr(KindJoin), Slot: SpectatorSlot, Players: 1, InputSize: 3, TickRate: 1}, "m", []byte{0}),
		join(Message{Header: hdr(KindJoin), Slot: 1, Players: 2, InputSize: 3, TickRate: 60, JoinFlags: JoinSnapshots}, "m", nil),
		{Header: hdr(KindWelcome), Nonce: 9, Slot: 0, Players: 1, Tick: 0},
		{Header: hdr(KindWelcome), Nonce: math.MaxUint32, Slot: SpectatorSlot, Players: MaxPlayers, Tick: MaxTick},
		{Header: hdr(KindRefused), Nonce: 4, Reason: RefusedToken},
		{Header: hdr(KindRefused), Reason: RefusedEnded},
		{Header: hdr(KindPlayerSum), Slot: 7, Tick: MaxTick, Sum: math.MaxUint64},
		{Header: hdr(KindPlayerSum), Slot: 0, Tick: 0, Sum: 0},
		{Header: hdr(KindSnapshotAsk), Tick: 1, Slot: 0},
		{Header: hdr(KindSnapshotAsk), Tick: MaxTick, Slot: 7},
		snapshot(Message{Header: hdr(KindSnapshot), Tick: 1, Sum: 5, Size: 1, Offset: 0}),
		snapshot(Message{Header: hdr(KindSnapshot), Tick: MaxTick, Sum: math.MaxUint64, Size: MaxSnapshot, Offset: MaxSnapshot - MaxSnapshot%MaxSnapshotChunk - MaxSnapshotChunk}),
		snapshot(Message{Header: hdr(KindSnapshot), Tick: 300, Size: 2*MaxSnapshotChunk + 10, Offset: 2 * MaxSnapshotChunk}),
		{Header: hdr(KindSnapshotAck), Tick: 1, Offset: 0},
		{Header: hdr(KindSnapshotAck), Tick: MaxTick, Offset: MaxSnapshot},
	}
}

// snapshot returns m with its piece set: bytes counting up, as long as the piece is.
func snapshot(m Message) Message {
	m.InputsLen = int(min(MaxSnapshotChunk, m.Size-m.Offset))
	for i := range m.InputsLen {
		m.Inputs[i] = byte(i)
	}
	return m
}

// join returns m with its match name and token set.
func join(m Message, match string, token []byte) Message {
	m.SetMatch(match)
	if !m.SetToken(token) {
		panic("token too long")
	}
	return m
}

func TestRoundTrip(t *testing.T) {
	for _, m := range sample() {
		pkt, err := Append(nil, &m)
		if err != nil {
			t.Fatalf("Append(%+v): %v", m.Header, err)
		}
		if len(pkt) > MaxPacket {
			t.Fatalf("%v: %d bytes", m.Kind, len(pkt))
		}
		var got Message
		if err := Decode(pkt, &got); err != nil {
			t.Fatalf("Decode(Append(%v)) = %v", m.Kind, err)
		}
		if got != m {
			t.Errorf("%v: decoded\n%+v\nwant\n%+v", m.Kind, got, m)
		}
		again, err := Append(nil, &got)
		if err != nil || !bytes.Equal(again, pkt) {
			t.Errorf("%v: re-encoded % x, %v; want % x", m.Kind, again, err, pkt)
		}
	}
}

// TestExactBytes pins the format that doc.go describes, so that a change to the encoding
// cannot pass unnoticed (it would take a new Version).
func TestExactBytes(t *testing.T) {
	m := Message{Header: Header{Kind: KindInput, Session: 0x04030201, Seq: 0x0605},
		StartTick: 300, AckTick: NoTick, Handles: 0b10, InputSize: 1, Players: 2,
		Status: [MaxPlayers]PlayerStatus{{LastTick: NoTick}, {Disconnected: true, LastTick: 0}}}
	if _, err := m.PackInputs([]byte{0}, []byte{0, 0, 0, 5, 5, 5}); err != nil {
		t.Fatal(err)
	}
	pkt, err := Append(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0xE7, 0x4E, 4, 3, 1, 2, 3, 4, 5, 6, // header
		0xAC, 0x02, 0x00, // start 300, ack NoTick+1
		0x02, 1, 6, 2, 0b10, // handles, size, count, players, disconnected
		0x00, 0x01, // last+1 of each player
		0x82, 0x00, 0x05, 0x81} // 3 zeros, the literal 05, 2 zeros (5 XOR 5)
	if !bytes.Equal(pkt, want) {
		t.Errorf("packet\n% x\nwant\n% x", pkt, want)
	}
}

func TestCompressTokens(t *testing.T) {
	long := make([]byte, 300)
	for _, c := range []struct {
		ref, in, want []byte
	}{
		{[]byte{0}, []byte{7}, []byte{0x00, 7}},
		{[]byte{7}, []byte{7}, []byte{0x80}},                         // one zero ending the data
		{[]byte{0}, []byte{0, 1}, []byte{0x01, 0, 1}},                // a lone zero stays in the literal
		{[]byte{0, 0}, []byte{1, 2, 1, 2}, []byte{0x01, 1, 2, 0x81}}, // a repeated tick is zeros
		{[]byte{0}, long[:127], []byte{0xFE}},
		{[]byte{0}, long[:128], []byte{0xFF, 0x00}},
		{[]byte{0}, long, []byte{0xFF, 0xAC, 0x01}}, // 128+172
		{[]byte{1, 2, 3}, []byte{1, 2, 3, 1, 2, 3}, []byte{0x85}},
	} {
		got, err := CompressInputs(nil, c.ref, c.in)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("CompressInputs(ref % x, % x) = % x, %v; want % x", c.ref, c.in, got, err, c.want)
		}
		back := make([]byte, len(c.in))
		if err := DecompressInputs(back, c.ref, got); err != nil || !bytes.Equal(back, c.in) {
			t.Errorf("DecompressInputs(% x) = % x, %v; want % x", got, back, err, c.in)
		}
	}
}

// TestCompressBound: inputs that do not compress at all grow by at most one byte in 128, the
// bound the packet's room for one tick of MaxTickBytes rests on.
func TestCompressBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		stride := 1 + r.IntN(MaxTickBytes)
		in := make([]byte, stride*(1+r.IntN(8)))
		for i := range in {
			in[i] = byte(1 + r.IntN(255)) // XOR of two such bytes may be 0; the bound holds anyway
		}
		ref := make([]byte, stride)
		out, err := CompressInputs(nil, ref, in)
		if err != nil {
			t.Fatal(err)
		}
		if bound := len(in) + (len(in)+litMax-1)/litMax; len(out) > bound {
			t.Fatalf("%d bytes compressed to %d, over %d", len(in), len(out), bound)
		}
	}
}

func TestPackUnpack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		m := Message{Header: Header{Kind: KindInput, Session: r.Uint32(), Seq: uint16(r.Uint32())},
			StartTick: r.Int64N(MaxTick / 2), AckTick: r.Int64N(MaxTick/2) - 1,
			Handles: HandleSet(1 + r.IntN(255)), Players: r.IntN(MaxPlayers + 1),
			Lost: HandleSet(r.IntN(3) * r.IntN(256)), Quiet: HandleSet(r.IntN(3) * r.IntN(256))}
		m.InputSize = 1 + r.IntN(MaxTickBytes/m.Handles.Len())
		m.InputSize = min(m.InputSize, MaxInputSize)
		for i := range m.Players {
			m.Status[i] = PlayerStatus{Disconnected: r.IntN(2) == 0, LastTick: r.Int64N(MaxTick+2) - 1}
		}
		stride := m.Handles.Len() * m.InputSize
		ticks := r.IntN(MaxTicksPerInput + 20)
		inputs, ref := make([]byte, ticks*stride), make([]byte, stride)
		// Inputs that change now and then, as a player's do: some bytes, some ticks.
		for i := range ref {
			ref[i] = byte(r.IntN(4))
		}
		for k := range ticks {
			copy(inputs[k*stride:], prevTick(inputs, ref, k, stride))
			if r.IntN(4) == 0 {
				inputs[k*stride+r.IntN(stride)] = byte(r.Uint32())
			}
			if r.IntN(50) == 0 { // now and then a tick of noise
				for i := range stride {
					inputs[k*stride+i] = byte(r.Uint32())
				}
			}
		}
		n, err := m.PackInputs(ref, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if ticks > 0 && n == 0 || n > ticks || n > MaxTicksPerInput {
			t.Fatalf("packed %d ticks of %d", n, ticks)
		}
		pkt, err := Append(nil, &m)
		if err != nil {
			t.Fatalf("Append after PackInputs: %v", err)
		}
		var got Message
		if err := Decode(pkt, &got); err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if got != m {
			t.Fatalf("decoded %+v, want %+v", got.Header, m.Header)
		}
		out, err := got.UnpackInputs(nil, ref)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, inputs[:n*stride]) {
			t.Fatalf("unpacked % x, want % x", out, inputs[:n*stride])
		}
		// Packing one tick more would not have fit (or there was none).
		if n < min(ticks, MaxTicksPerInput) {
			c, _ := CompressInputs(nil, ref, inputs[:(n+1)*stride])
			if len(pkt)-got.InputsLen+len(c) <= MaxPacket {
				t.Fatalf("packed %d ticks in %d bytes, but %d fit in %d", n, len(pkt), n+1, len(pkt)-got.InputsLen+len(c))
			}
		}
	}
}

func prevTick(inputs, ref []byte, k, stride int) []byte {
	if k == 0 {
		return ref
	}
	return inputs[(k-1)*stride : k*stride]
}

// TestPackWorstCase: the largest fields and inputs that do not compress at all still leave
// room for a tick of MaxTickBytes, and PackInputs packs as many ticks as fit.
func TestPackWorstCase(t *testing.T) {
	m := Message{Header: Header{Kind: KindInput}, StartTick: MaxTick - 200, AckTick: MaxTick,
		Handles: 0xFF, InputSize: MaxTickBytes / 8, Players: MaxPlayers, Lost: 0x7F, Quiet: 0x80}
	for i := range m.Status {
		m.Status[i].LastTick = MaxTick
	}
	stride := MaxTickBytes
	inputs := make([]byte, 100*stride)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range inputs {
		inputs[i] = byte(r.Uint32())
	}
	n, err := m.PackInputs(make([]byte, stride), inputs)
	if err != nil || n != 1 {
		t.Fatalf("PackInputs = %d, %v; want 1 tick", n, err)
	}
	pkt, err := Append(nil, &m)
	if err != nil || len(pkt) > MaxPacket {
		t.Fatalf("Append: %d bytes, %v", len(pkt), err)
	}
	// Ticks near MaxTick: no tick past it is packed.
	m.Handles, m.InputSize = 1, 1
	m.StartTick = MaxTick - 2
	n, err = m.PackInputs([]byte{0}, []byte{1, 2, 3, 4, 5})
	if err != nil || n != 3 {
		t.Fatalf("PackInputs at MaxTick-2 = %d, %v; want 3", n, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	good := func(k Kind) []byte {
		for _, m := range sample() {
			if m.Kind == k {
				p, err := Append(nil, &m)
				if err != nil {
					panic(err)
				}
				return p
			}
		}
		panic(k)
	}
	edit := func(p []byte, f func([]byte) []byte) []byte { return f(bytes.Clone(p)) }
	hdr := []byte{0xE7, 0x4E, Version, 0, 0, 0, 0, 0, 0, 0}
	with := func(k Kind, body ...byte) []byte {
		p := bytes.Clone(hdr)
		p[3] = byte(k)
		return append(p, body...)
	}
	in := func(body ...byte) []byte { return with(KindInput, body...) }
	for _, c := range []struct {
		name  string
		pkt   []byte
		err   error
		field string
	}{
		{"empty", nil, ErrMalformed, "header"},
		{"short header", hdr[:9], ErrMalformed, "header"},
		{"magic", edit(hdr, func(p []byte) []byte { p[0] = 'G'; return p }), ErrMalformed, "header.magic"},
		{"version 1", edit(good(KindKeepAlive), func(p []byte) []byte { p[2] = 1; return p }), ErrVersion, "header.version"},
		{"version 2", edit(good(KindKeepAlive), func(p []byte) []byte { p[2] = 2; return p }), ErrVersion, "header.version"},
		{"version 3", edit(good(KindKeepAlive), func(p []byte) []byte { p[2] = 3; return p }), ErrVersion, "header.version"},
		{"version 5", edit(good(KindKeepAlive), func(p []byte) []byte { p[2] = 5; return p }), ErrVersion, "header.version"},
		{"version 0", edit(good(KindKeepAlive), func(p []byte) []byte { p[2] = 0; return p }), ErrVersion, "header.version"},
		{"kind 0", with(0), ErrMalformed, "header.kind"},
		{"kind 21", with(21), ErrMalformed, "header.kind"},
		{"join short", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2), ErrMalformed, "Join"},
		{"join slot 8", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 8, 2, 1, 60, 0, 0), ErrMalformed, "Join"},
		{"join no players", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 1, 60, 0, 0), ErrMalformed, "Join"},
		{"join tick rate 0", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 0, 0, 0), ErrMalformed, "Join"},
		{"join tick rate 1001", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 0xE9, 0x07, 0, 0), ErrMalformed, "Join"},
		{"join match cut", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 60, 3, 'a', 'b'), ErrMalformed, "Join"},
		{"join match 65", with(KindJoin, append([]byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 60, 65}, make([]byte, 66)...)...), ErrMalformed, "Join"},
		{"join token 97", with(KindJoin, append([]byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 60, 0, 97}, make([]byte, 97)...)...), ErrMalformed, "Join"},
		{"join trailing", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 60, 0, 0, 0, 0), ErrMalformed, "packet"},
		{"join no flags", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 60, 0, 0), ErrMalformed, "Join"},
		{"join flags 2", with(KindJoin, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1, 60, 0, 0, 2), ErrMalformed, "Join"},
		{"snapshot ask tick 0", with(KindSnapshotAsk, 0, 0), ErrMalformed, "SnapshotAsk"},
		{"snapshot ask slot 8", with(KindSnapshotAsk, 1, 8), ErrMalformed, "SnapshotAsk"},
		{"snapshot ask short", with(KindSnapshotAsk, 1), ErrMalformed, "SnapshotAsk"},
		{"snapshot tick 0", with(KindSnapshot, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 9), ErrMalformed, "Snapshot"},
		{"snapshot size 0", with(KindSnapshot, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0), ErrMalformed, "Snapshot"},
		{"snapshot size past max", with(KindSnapshot, append(append([]byte{1, 1, 2, 3, 4, 5, 6, 7, 8}, appendUvarint(nil, MaxSnapshot+1)...), 0, 9)...), ErrMalformed, "Snapshot"},
		{"snapshot offset past size", with(KindSnapshot, 1, 1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 9), ErrMalformed, "Snapshot"},
		{"snapshot offset not a piece's", with(KindSnapshot, append([]byte{1, 1, 2, 3, 4, 5, 6, 7, 8, 0xE8, 0x07, 1}, make([]byte, MaxSnapshotChunk)...)...), ErrMalformed, "Snapshot"},
		{"snapshot piece short", with(KindSnapshot, 1, 1, 2, 3, 4, 5, 6, 7, 8, 2, 0, 9), ErrMalformed, "Snapshot"},
		{"snapshot piece long", with(KindSnapshot, 1, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 9, 9), ErrMalformed, "Snapshot"},
		{"snapshot ack tick 0", with(KindSnapshotAck, 0, 0), ErrMalformed, "SnapshotAck"},
		{"snapshot ack offset past max", with(KindSnapshotAck, append([]byte{1}, appendUvarint(nil, MaxSnapshot+1)...)...), ErrMalformed, "SnapshotAck"},
		{"snapshot ack trailing", with(KindSnapshotAck, 1, 0, 0), ErrMalformed, "packet"},
		{"welcome slot 8", with(KindWelcome, 1, 2, 3, 4, 8, 2, 0), ErrMalformed, "Welcome"},
		{"welcome any slot", with(KindWelcome, 1, 2, 3, 4, AnySlot, 2, 0), ErrMalformed, "Welcome"},
		{"welcome 9 players", with(KindWelcome, 1, 2, 3, 4, 0, 9, 0), ErrMalformed, "Welcome"},
		{"welcome no tick", with(KindWelcome, 1, 2, 3, 4, 0, 2), ErrMalformed, "Welcome"},
		{"refused reason 0", with(KindRefused, 1, 2, 3, 4, 0), ErrMalformed, "Refused"},
		{"refused reason 9", with(KindRefused, 1, 2, 3, 4, 9), ErrMalformed, "Refused"},
		{"refused no reason", with(KindRefused, 1, 2, 3, 4), ErrMalformed, "Refused"},
		{"player sum slot 8", with(KindPlayerSum, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8), ErrMalformed, "PlayerSum"},
		{"player sum short", with(KindPlayerSum, 0, 0, 1, 2, 3), ErrMalformed, "PlayerSum"},
		{"spectate no cookie", with(KindSpectate, 1, 2, 3, 4), ErrMalformed, "Cookie"},
		{"cookie short", with(KindCookie, 1, 2, 3), ErrMalformed, "Cookie"},
		{"dropped empty", with(KindDropped), ErrMalformed, "Dropped.Cutoff"},
		{"dropped no flags", with(KindDropped, 0), ErrMalformed, "Dropped.Cutoff"},
		{"dropped unknown flag", with(KindDropped, 0, 16), ErrMalformed, "Dropped.Cutoff"},
		{"dropped trailing", with(KindDropped, 0, 1, 0), ErrMalformed, "packet"},
		{"kind 255", with(255), ErrMalformed, "header.kind"},
		{"too long", append(good(KindKeepAlive), make([]byte, MaxPacket)...), ErrMalformed, "packet"},
		{"keepalive trailing", append(good(KindKeepAlive), 0), ErrMalformed, "packet"},
		{"bye trailing", append(good(KindBye), 1), ErrMalformed, "packet"},
		{"sync short", with(KindSyncRequest, 1, 2, 3), ErrMalformed, "Sync.Nonce"},
		{"sync trailing", with(KindSyncReply, 1, 2, 3, 4, 5), ErrMalformed, "packet"},
		{"ack empty", with(KindInputAck), ErrMalformed, "AckTick"},
		{"ack unterminated", with(KindInputAck, 0x80), ErrMalformed, "AckTick"},
		{"ack non-minimal", with(KindInputAck, 0x81, 0x00), ErrMalformed, "AckTick"},
		{"ack past MaxTick", with(KindInputAck, appendUvarint(nil, MaxTick+2)...), ErrMalformed, "AckTick"},
		{"ack 11-byte varint", with(KindInputAck, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01), ErrMalformed, "AckTick"},
		{"ack overflow", with(KindInputAck, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02), ErrMalformed, "AckTick"},
		{"checksum tick past MaxTick", with(KindChecksumReport, append(appendUvarint(nil, MaxTick+1), make([]byte, 8)...)...), ErrMalformed, "ChecksumReport.Tick"},
		{"checksum short sum", with(KindChecksumReport, 1, 2, 3), ErrMalformed, "ChecksumReport.Sum"},
		{"quality ahead past int32", with(KindQualityReport, append(appendUvarint(nil, zigzag(math.MaxInt32+1)), make([]byte, 8)...)...), ErrMalformed, "QualityReport.TicksAhead"},
		{"quality short ping", with(KindQualityReport, 1, 2), ErrMalformed, "PingSent"},
		{"reply short ping", with(KindQualityReply, 1, 2, 3, 4, 5, 6, 7), ErrMalformed, "PingSent"},
		{"input empty", in(), ErrMalformed, "Input.StartTick"},
		{"input start past MaxTick", in(appendUvarint(nil, MaxTick+1)...), ErrMalformed, "Input.StartTick"},
		{"input no ack", in(0), ErrMalformed, "AckTick"},
		{"input short fixed", in(0, 0, 1, 1, 0, 0), ErrMalformed, "Input"},
		{"input size 0", in(0, 0, 1, 0, 0, 0, 0), ErrMalformed, "Input.InputSize"},
		{"input size 65", in(0, 0, 1, 65, 0, 0, 0), ErrMalformed, "Input.InputSize"},
		{"input tick bytes", in(0, 0, 0x1F, 64, 0, 0, 0), ErrMalformed, "Input.Handles"},
		{"input count 129", in(0, 0, 1, 1, 129, 0, 0), ErrMalformed, "Input.Count"},
		{"input no handles", in(0, 0, 0, 1, 1, 0, 0, 0x00, 1), ErrMalformed, "Input.Handles"},
		{"input lost missing", in(0, 0, 1, 1, 0, 0x80, 0), ErrMalformed, "Input.Lost"},
		{"input lost empty", in(0, 0, 1, 1, 0, 0x80, 0, 0), ErrMalformed, "Input.Lost"},
		{"input quiet empty", in(0, 0, 1, 1, 0, 0xC0, 0, 1, 0), ErrMalformed, "Input.Quiet"},
		{"input kicked empty", in(0, 0, 1, 1, 0, 0x20, 0, 0), ErrMalformed, "Input.Kicked"},
		{"input joined missing", in(0, 0, 1, 1, 0, 0x11, 0, 0), ErrMalformed, "Input.Joined"},
		{"input joined empty", in(0, 0, 1, 1, 0, 0x11, 0, 0, 0), ErrMalformed, "Input.Joined"},
		{"input joined past players", in(0, 0, 1, 1, 0, 0x11, 0, 0, 0b10, 1), ErrMalformed, "Input.Joined"},
		{"input joined tick 0", in(0, 0, 1, 1, 0, 0x11, 0, 0, 0b1, 0), ErrMalformed, "Input.Joined"},
		{"input joined tick missing", in(0, 0, 1, 1, 0, 0x12, 0, 0, 0, 0b11, 1), ErrMalformed, "Input.Joined"},
		{"input joined past MaxTick", in(append([]byte{0, 0, 1, 1, 0, 0x11, 0, 0, 1}, appendUvarint(nil, MaxTick+1)...)...), ErrMalformed, "Input.Joined"},
		{"input players 9", in(0, 0, 1, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), ErrMalformed, "Input.Players"},
		{"input disconnected past players", in(0, 0, 1, 1, 0, 1, 0b10, 0), ErrMalformed, "Input.Status"},
		{"input last tick missing", in(0, 0, 1, 1, 0, 2, 0, 0), ErrMalformed, "Input.Status.LastTick"},
		{"input last tick past MaxTick", in(append([]byte{0, 0, 1, 1, 0, 1, 0}, appendUvarint(nil, MaxTick+2)...)...), ErrMalformed, "Input.Status.LastTick"},
		{"input past MaxTick", in(append(appendUvarint(nil, MaxTick), 0, 1, 1, 2, 0, 0, 0x81)...), ErrMalformed, "Input.Count"},
		{"inputs short", in(0, 0, 1, 1, 3, 0, 0, 0x00, 1), ErrMalformed, "Input.Inputs"},
		{"inputs long", in(0, 0, 1, 1, 1, 0, 0, 0x81), ErrMalformed, "Input.Inputs"},
		{"inputs literal cut", in(0, 0, 1, 1, 3, 0, 0, 0x02, 1, 2), ErrMalformed, "Input.Inputs"},
		{"inputs with count 0", in(0, 0, 1, 1, 0, 0, 0, 0x80), ErrMalformed, "Input.Inputs"},
		{"inputs long zero run cut", in(0, 0, 1, 1, 128, 0, 0, 0xFF), ErrMalformed, "Input.Inputs"},
		{"inputs huge zero run", in(0, 0, 1, 1, 128, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01), ErrMalformed, "Input.Inputs"},
	} {
		var m Message
		m.Nonce, m.Count = 42, 7 // Decode zeroes what a failed decode leaves
		err := Decode(c.pkt, &m)
		var e *Error
		if !errors.Is(err, c.err) || !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("%s: Decode(% x) = %v; want %v in field %s", c.name, c.pkt, err, c.err, c.field)
			continue
		}
		if m.Nonce == 42 {
			t.Errorf("%s: Decode left the message's old fields", c.name)
		}
	}
}

func TestAppendRejects(t *testing.T) {
	valid := Message{Header: Header{Kind: KindInput}, Handles: 1, InputSize: 1}
	for _, c := range []struct {
		name  string
		edit  func(*Message)
		err   error
		field string
	}{
		{"kind 0", func(m *Message) { m.Kind = 0 }, ErrInvalid, "header.kind"},
		{"kind 21", func(m *Message) { m.Kind = 21 }, ErrInvalid, "header.kind"},
		{"join flags", func(m *Message) {
			*m = Message{Header: Header{Kind: KindJoin}, Players: 2, InputSize: 1, TickRate: 60, JoinFlags: 4}
		}, ErrInvalid, "Join"},
		{"snapshot ask tick", func(m *Message) { *m = Message{Header: Header{Kind: KindSnapshotAsk}} }, ErrInvalid, "SnapshotAsk"},
		{"snapshot piece", func(m *Message) {
			*m = Message{Header: Header{Kind: KindSnapshot}, Tick: 1, Size: 10, InputsLen: 9}
		}, ErrInvalid, "Snapshot"},
		{"snapshot ack offset", func(m *Message) { *m = Message{Header: Header{Kind: KindSnapshotAck}, Tick: 1, Offset: -1} }, ErrInvalid, "SnapshotAck"},
		{"join slot", func(m *Message) {
			*m = Message{Header: Header{Kind: KindJoin}, Slot: 8, Players: 2, InputSize: 1, TickRate: 60}
		}, ErrInvalid, "Join"},
		{"join rate", func(m *Message) {
			*m = Message{Header: Header{Kind: KindJoin}, Players: 2, InputSize: 1, TickRate: 1001}
		}, ErrInvalid, "Join"},
		{"welcome players", func(m *Message) { *m = Message{Header: Header{Kind: KindWelcome}, Players: 0} }, ErrInvalid, "Welcome"},
		{"refused reason", func(m *Message) { *m = Message{Header: Header{Kind: KindRefused}} }, ErrInvalid, "Refused"},
		{"player sum slot", func(m *Message) { *m = Message{Header: Header{Kind: KindPlayerSum}, Slot: -1} }, ErrInvalid, "PlayerSum"},
		{"dropped cutoff", func(m *Message) { m.Kind, m.Cutoff = KindDropped, -2 }, ErrInvalid, "Dropped.Cutoff"},
		{"dropped flags", func(m *Message) { m.Kind, m.DropFlags = KindDropped, 16 }, ErrInvalid, "Dropped.Cutoff"},
		{"start -1", func(m *Message) { m.StartTick = -1 }, ErrInvalid, "Input.StartTick"},
		{"start past MaxTick", func(m *Message) { m.StartTick = MaxTick + 1 }, ErrInvalid, "Input.StartTick"},
		{"ack -2", func(m *Message) { m.AckTick = -2 }, ErrInvalid, "AckTick"},
		{"size 0", func(m *Message) { m.InputSize = 0 }, ErrInvalid, "Input.InputSize"},
		{"size 65", func(m *Message) { m.InputSize = 65 }, ErrInvalid, "Input.InputSize"},
		{"tick bytes", func(m *Message) { m.Handles, m.InputSize = 0x1F, 64 }, ErrInvalid, "Input.Handles"},
		{"count -1", func(m *Message) { m.Count = -1 }, ErrInvalid, "Input.Count"},
		{"count 129", func(m *Message) { m.Count = 129 }, ErrInvalid, "Input.Count"},
		{"no handles", func(m *Message) { m.Handles, m.Count = 0, 1 }, ErrInvalid, "Input.Handles"},
		{"past MaxTick", func(m *Message) { m.StartTick, m.Count = MaxTick, 2 }, ErrInvalid, "Input.Count"},
		{"players 9", func(m *Message) { m.Players = 9 }, ErrInvalid, "Input.Players"},
		{"last tick", func(m *Message) { m.Players = 1; m.Status[0].LastTick = -2 }, ErrInvalid, "Input.Status.LastTick"},
		{"joined -1", func(m *Message) { m.Players = 1; m.Joined[0] = -1 }, ErrInvalid, "Input.Joined"},
		{"joined past MaxTick", func(m *Message) { m.Players = 1; m.Joined[0] = MaxTick + 1 }, ErrInvalid, "Input.Joined"},
		{"joined past players", func(m *Message) { m.Players = 1; m.Joined[1] = 5 }, ErrInvalid, "Input.Joined"},
		{"inputs len", func(m *Message) { m.InputsLen = MaxPacket + 1 }, ErrInvalid, "Input.InputsLen"},
		{"inputs short", func(m *Message) { m.Count = 1 }, ErrInvalid, "Input.Inputs"},
		{"inputs long", func(m *Message) { m.Inputs[0], m.InputsLen = 0x80, 1 }, ErrInvalid, "Input.Inputs"},
		{"too large", func(m *Message) {
			// 512 zeros as 496 bytes of the shortest zero runs: valid, but over MaxPacket.
			m.Handles, m.InputSize, m.Count = 0xFF, 32, 2
			for i := range 495 {
				m.Inputs[i] = 0x80
			}
			m.Inputs[495], m.InputsLen = 0x80+16, 496
		}, ErrTooLarge, "packet"},
		{"ack message", func(m *Message) { m.Kind, m.AckTick = KindInputAck, MaxTick+1 }, ErrInvalid, "AckTick"},
		{"checksum tick", func(m *Message) { m.Kind, m.Tick = KindChecksumReport, -1 }, ErrInvalid, "ChecksumReport.Tick"},
	} {
		m := valid
		c.edit(&m)
		dst := []byte("prefix")
		got, err := Append(dst, &m)
		var e *Error
		if !errors.Is(err, c.err) || !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("%s: Append = %v; want %v in field %s", c.name, err, c.err, c.field)
		}
		if string(got) != "prefix" {
			t.Errorf("%s: Append left %q", c.name, got)
		}
	}
}

func TestUnpackRejects(t *testing.T) {
	m := Message{Header: Header{Kind: KindInput}, Handles: 0b11, InputSize: 2}
	if _, err := m.PackInputs(make([]byte, 4), []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.UnpackInputs(nil, make([]byte, 3)); !errors.Is(err, ErrInvalid) {
		t.Errorf("UnpackInputs with a short reference = %v; want ErrInvalid", err)
	}
	m.InputsLen-- // cut the last literal byte
	if out, err := m.UnpackInputs([]byte("x"), make([]byte, 4)); !errors.Is(err, ErrMalformed) || string(out) != "x" {
		t.Errorf("UnpackInputs of cut inputs = %q, %v; want ErrMalformed", out, err)
	}
	if _, err := m.PackInputs(make([]byte, 3), []byte{1, 2, 3, 4}); !errors.Is(err, ErrInvalid) {
		t.Errorf("PackInputs with a short reference = %v; want ErrInvalid", err)
	}
	if _, err := m.PackInputs(make([]byte, 4), []byte{1, 2, 3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("PackInputs of part of a tick = %v; want ErrInvalid", err)
	}
	if _, err := CompressInputs(nil, nil, []byte{1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("CompressInputs with no reference = %v; want ErrInvalid", err)
	}
	if err := DecompressInputs(make([]byte, 3), make([]byte, 2), nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("DecompressInputs into part of a tick = %v; want ErrInvalid", err)
	}
}

// TestNoAllocs: encoding, decoding, packing and unpacking a message allocate nothing, nor
// does rejecting a malformed packet.
func TestNoAllocs(t *testing.T) {
	m := sample()[4]
	buf := make([]byte, 0, MaxPacket)
	pkt, _ := Append(nil, &m)
	bad := pkt[:len(pkt)-1] // the last literal cut short
	ref := []byte{1, 2, 3, 4}
	inputs := []byte{1, 2, 3, 4, 0, 0, 9, 9}
	out := make([]byte, 0, 64)
	var got Message
	for name, f := range map[string]func(){
		"Append":      func() { buf, _ = Append(buf[:0], &m) },
		"Decode":      func() { _ = Decode(pkt, &got) },
		"Decode bad":  func() { _ = Decode(bad, &got) },
		"PackInputs":  func() { _, _ = m.PackInputs(ref, inputs) },
		"UnpackInput": func() { out, _ = m.UnpackInputs(out[:0], ref) },
		"Compress":    func() { out, _ = CompressInputs(out[:0], ref, inputs) },
	} {
		if a := testing.AllocsPerRun(100, f); a != 0 {
			t.Errorf("%s: %v allocations", name, a)
		}
	}
	if err := Decode(bad, &got); err == nil {
		t.Error("the corrupted packet decoded")
	}
}

func TestSessionID(t *testing.T) {
	seen := map[uint32]bool{}
	for _, p := range [][2]uint32{{0, 0}, {1, 2}, {2, 1}, {math.MaxUint32, 0}, {12345, 67890}, {1, 3}} {
		a, b := SessionID(p[0], p[1]), SessionID(p[1], p[0])
		if a != b || a == 0 {
			t.Errorf("SessionID(%d, %d) = %#x, reversed %#x", p[0], p[1], a, b)
		}
		seen[a] = true
	}
	if len(seen) != 5 {
		t.Errorf("%d distinct ids of 5 distinct pairs", len(seen))
	}
}

func TestKindString(t *testing.T) {
	if s := KindChecksumReport.String(); s != "ChecksumReport" {
		t.Errorf("KindChecksumReport = %q", s)
	}
	if s := Kind(200).String(); s != "Kind(200)" {
		t.Errorf("Kind(200) = %q", s)
	}
	if s := (&Error{Field: "Input.Count", Problem: "over", Err: ErrMalformed}).Error(); s != "wire: malformed packet: Input.Count: over" {
		t.Errorf("Error() = %q", s)
	}
}
