// Package rtc is a net.PacketConn over WebRTC data channels, for netplay sessions between
// browsers, and between browsers and native programs: the same code builds natively (with
// pion/webrtc) and for GOOS=js GOARCH=wasm (where pion wraps the browser's RTCPeerConnection).
//
// Peers meet at a lobby (package lobby, served by cmd/lobby): Dial joins a room by name and
// size, and returns once the room is full and a data channel is open with every other member,
// a full mesh of up to 8. The lobby relays only the signalling (SDP offers and answers, ICE
// candidates); the datagrams go from peer to peer, unordered and never retransmitted, as UDP's.
//
//	conn, err := rtc.Dial(ctx, "ws://127.0.0.1:8089/ws", "duel", 2, nil)
//	if err != nil {
//		return err
//	}
//	session, err := netplay.NewSession(conn, netplay.Config[Buttons]{
//		Players: conn.Players(), // a player per member, in the order they joined
//		Codec:   ButtonsCodec{},
//	})
//
// Every member agrees on every member's index (Conn.Index, the order of joining) and address
// (Conn.PeerAddr, an Addr naming the room and the index), so that programs agree on who is
// player 1 and who is player 2 without talking. netplay polls a Conn (TryReadFrom) from its own
// calls, with no goroutine of its own, and counts its traffic in its Stats as over UDP.
//
// With no ICE servers (the default) peers on one machine or one network connect; peers behind
// NAT on different networks need a STUN server, and some a TURN server (Options.ICEServers).
package rtc
