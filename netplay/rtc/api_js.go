//go:build js

package rtc

import "github.com/pion/webrtc/v4"

// newAPI returns pion's API, which wraps the browser's RTCPeerConnection: the browser gathers
// its candidates and resolves mDNS names itself.
func newAPI(*Options) *webrtc.API { return webrtc.NewAPI() }

// transportBytes returns 0: the browser keeps its transport's counts to itself here.
func transportBytes(*webrtc.PeerConnection) (sent, received uint64) { return 0, 0 }
