//go:build !js

package rtc_test

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// pair is two conns between two peers on 127.0.0.1, over UDP or over rtc data channels.
type pair struct {
	conns   [2]net.PacketConn
	addrs   [2]net.Addr // each one's address as the other writes to it
	players [2][]netplay.Player
	rtcs    [2]*rtc.Conn // over rtc
}

func udpPair(b testing.TB) *pair {
	p := &pair{}
	for i := range p.conns {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		p.conns[i], p.addrs[i] = c, c.LocalAddr()
	}
	for i := range p.players {
		p.players[i] = make([]netplay.Player, 2)
		p.players[i][i].Local = true
		p.players[i][1-i].Addr = p.addrs[1-i]
	}
	return p
}

func rtcPair(b testing.TB) *pair {
	url, _ := startLobby(b, lobby.Config{})
	conns := dialRoom(b, url, "bench", 2, nil)
	p := &pair{}
	for i, c := range conns {
		p.conns[i], p.addrs[i], p.players[i], p.rtcs[i] = c, c.LocalAddr(), c.Players(), c
	}
	return p
}

// BenchmarkEcho measures the round trip of a 64-byte datagram between two peers on one
// machine, over UDP and over a WebRTC data channel: one peer writes, the other writes it back
// from a goroutine reading ReadFrom. ns/op is the mean round trip; p50-µs and p99-µs its
// median and 99th percentile. A datagram lost is sent again, and its wait not counted.
func BenchmarkEcho(b *testing.B) {
	b.Run("udp", func(b *testing.B) { benchEcho(b, udpPair(b)) })
	b.Run("rtc", func(b *testing.B) { benchEcho(b, rtcPair(b)) })
}

func benchEcho(b *testing.B, p *pair) {
	echoDone := make(chan struct{})
	go func() {
		defer close(echoDone)
		buf := make([]byte, 1500)
		for {
			n, from, err := p.conns[1].ReadFrom(buf)
			if err != nil {
				return
			}
			p.conns[1].WriteTo(buf[:n], from)
		}
	}()
	msg := make([]byte, 64)
	buf := make([]byte, 1500)
	rtts := make([]time.Duration, 0, b.N)
	lost := 0
	b.ResetTimer()
	for range b.N {
		for {
			t0 := time.Now()
			if _, err := p.conns[0].WriteTo(msg, p.addrs[1]); err != nil {
				b.Fatal(err)
			}
			p.conns[0].SetReadDeadline(t0.Add(time.Second))
			if _, _, err := p.conns[0].ReadFrom(buf); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					lost++
					continue
				}
				b.Fatal(err)
			}
			rtts = append(rtts, time.Since(t0))
			break
		}
	}
	b.StopTimer()
	p.conns[1].Close()
	<-echoDone
	slices.Sort(rtts)
	b.ReportMetric(float64(rtts[len(rtts)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(rtts[len(rtts)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(lost), "lost")
}

// BenchmarkNetplay60Hz plays a 2-player netplay game at 60 Hz in real time between two peers
// on one machine, over UDP and over WebRTC data channels: an op is a second of game (60
// ticks), once both are synchronized. It reports the sessions' round trip (ping-ms, netplay's
// own, measured at its 60 Hz polling), netplay's payload each peer sends a second
// (payload-B/s, the same over both), what goes in UDP datagrams for it a second (udp-B/s:
// the payload itself over UDP; over rtc the DTLS records carrying SCTP packets, with ICE's
// checks), and the datagrams a second.
func BenchmarkNetplay60Hz(b *testing.B) {
	b.Run("udp", func(b *testing.B) { benchNetplay(b, udpPair(b)) })
	b.Run("rtc", func(b *testing.B) { benchNetplay(b, rtcPair(b)) })
}

func benchNetplay(b *testing.B, p *pair) {
	var sessions [2]*netplay.Session[buttons]
	var games [2]*game
	for i := range sessions {
		s, err := netplay.NewSession(p.conns[i], netplay.Config[buttons]{Players: p.players[i], Codec: buttonsCodec{},
			DisconnectTimeout: guard, DisconnectNotice: guard / 2})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		sessions[i], games[i] = s, newGame(s.Slots(), 0)
	}
	start := time.Now()
	frame := 0
	// play runs frames until ok, a frame every 1/60 s of real time.
	play := func(ok func() bool) {
		for !ok() {
			frame++
			now := time.Since(start)
			for i, s := range sessions {
				if err := advance(s, i, games[i], now); err != nil {
					b.Fatal(err)
				}
			}
			time.Sleep(time.Until(start.Add(time.Duration(frame) * time.Second / 60)))
		}
	}
	// Warm up: synchronized, and a second of game for the round trip to settle.
	play(func() bool { return sessions[0].Tick() >= 60 && sessions[1].Tick() >= 60 })
	wire := func() (total uint64) {
		for i, s := range sessions {
			if p.rtcs[i] != nil {
				total += p.rtcs[i].Stats().WireBytesSent
			} else {
				total += s.Stats().BytesSent
			}
		}
		return total
	}
	stats := func() (bytes, packets uint64) {
		for _, s := range sessions {
			st := s.Stats()
			bytes += st.BytesSent
			packets += st.PacketsSent
		}
		return bytes, packets
	}
	bytes0, packets0 := stats()
	wire0 := wire()
	t0 := time.Now()
	b.ResetTimer()
	end := frame + 60*b.N
	play(func() bool { return frame >= end })
	b.StopTimer()
	secs := time.Since(t0).Seconds()
	bytes1, packets1 := stats()
	var ping time.Duration
	for i, s := range sessions {
		ping += s.PeerStats(1-i).Ping / 2
	}
	b.ReportMetric(float64(ping.Microseconds())/1e3, "ping-ms")
	b.ReportMetric(float64(bytes1-bytes0)/2/secs, "payload-B/s")
	b.ReportMetric(float64(wire()-wire0)/2/secs, "udp-B/s")
	b.ReportMetric(float64(packets1-packets0)/2/secs, "datagrams/s")
}
