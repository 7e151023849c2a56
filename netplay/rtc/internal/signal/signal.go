// Package signal is the protocol between the lobby (package lobby, cmd/lobby) and its peers
// (package rtc): JSON messages over a WebSocket, one message a WebSocket text message.
//
// A peer joins a room; when the room is full the lobby tells every member its index and the
// room's size. The members then exchange, through the lobby, the SDP descriptions and ICE
// candidates of a WebRTC connection between every two of them: the member with the higher index
// makes the offer. A member that has connected with every other sends ready; the lobby then
// closes its socket. A member's id is its index in the room: the order in which the members
// joined.
//
//	peer -> lobby  {"type":"join","room":"r1","size":2}
//	lobby -> peer  {"type":"joined","room":"r1","size":2,"members":1}      (room not full yet)
//	lobby -> peer  {"type":"start","room":"r1","size":2,"index":0}       (room full)
//	peer -> lobby  {"type":"signal","to":1,"data":{...}}
//	lobby -> peer  {"type":"signal","from":0,"data":{...}}
//	lobby -> peer  {"type":"left","from":1}                             (a member left unconnected)
//	peer -> lobby  {"type":"ready"}                                     (connected to every member)
//	lobby -> peer  {"type":"error","error":"..."}                       (then the lobby closes)
package signal

import "encoding/json"

// Message types.
const (
	TypeJoin   = "join"
	TypeJoined = "joined"
	TypeStart  = "start"
	TypeSignal = "signal"
	TypeLeft   = "left"
	TypeReady  = "ready"
	TypeError  = "error"
)

// Message is every message of the protocol; Type says which fields it uses.
type Message struct {
	Type    string          `json:"type"`
	Room    string          `json:"room,omitempty"`
	Size    int             `json:"size,omitempty"`
	Members int             `json:"members,omitempty"` // joined: members in the room so far
	Index   int             `json:"index"`             // start: the receiver's index
	To      int             `json:"to"`                // signal from a peer: the member it is for
	From    int             `json:"from"`              // signal or left from the lobby: the member concerned
	Data    json.RawMessage `json:"data,omitempty"`    // signal: what the lobby relays unread
	Error   string          `json:"error,omitempty"`
}

// Payload is the data of a signal between two members: an SDP description or an ICE
// candidate (as the browser's RTCSessionDescriptionInit and RTCIceCandidateInit), one at a time.
type Payload struct {
	SDP       *SessionDescription `json:"sdp,omitempty"`
	Candidate *Candidate          `json:"candidate,omitempty"`
}

// SessionDescription is an offer or an answer.
type SessionDescription struct {
	Type string `json:"type"` // "offer" or "answer"
	SDP  string `json:"sdp"`
}

// Candidate is an ICE candidate.
type Candidate struct {
	Candidate        string  `json:"candidate"`
	SDPMid           *string `json:"sdpMid,omitempty"`
	SDPMLineIndex    *uint16 `json:"sdpMLineIndex,omitempty"`
	UsernameFragment *string `json:"usernameFragment,omitempty"`
}
