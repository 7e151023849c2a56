//go:build !js

package rtc

import (
	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// newAPI returns pion's API with the settings of o: loopback candidates gathered (peers on one
// machine connect with no other interface up), and mDNS candidates resolved only if asked.
func newAPI(o *Options) *webrtc.API {
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	if o.ResolveMDNS {
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeQueryOnly)
	} else {
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(se))
}

// transportBytes returns the bytes pc's ICE transport sent and received: UDP payloads, the
// DTLS records that carry the SCTP packets of the data channel, and ICE's own checks.
func transportBytes(pc *webrtc.PeerConnection) (sent, received uint64) {
	for _, s := range pc.GetStats() {
		if ts, ok := s.(webrtc.TransportStats); ok {
			sent += ts.BytesSent
			received += ts.BytesReceived
		}
	}
	return sent, received
}
