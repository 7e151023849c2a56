//go:build js

package rtc

import "github.com/pion/webrtc/v4"

// newAPI returns pion's API, which wraps the browser's RTCPeerConnection: the browser gathers
// its candidates and resolves mDNS names itself.
func newAPI(*Options) *webrtc.API { return webrtc.NewAPI() }
