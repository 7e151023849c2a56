package agones_test

import (
	"encoding/json"
	"testing"

	"github.com/gameloop-go/gameloop/agones"
)

// TestRoomRequest: the allocation request for a relay with room is the JSON the allocator
// service's AllocationRequest takes (allocation.proto's field names, its enums as names, int64
// as strings): an Allocated relay of the fleet with a room free, else a Ready one, packed.
func TestRoomRequest(t *testing.T) {
	got, err := json.Marshal(agones.RoomRequest("default", "relay", "rooms"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"namespace":"default","gameServerSelectors":[` +
		`{"matchLabels":{"agones.dev/fleet":"relay"},"gameServerState":"ALLOCATED","counters":{"rooms":{"minAvailable":"1"}}},` +
		`{"matchLabels":{"agones.dev/fleet":"relay"},"gameServerState":"READY","counters":{"rooms":{"minAvailable":"1"}}}],` +
		`"scheduling":"Packed"}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestAllocationResponse: the allocator's answer, as allocation.proto's AllocationResponse
// writes it, gives the game server, its address and its ports.
func TestAllocationResponse(t *testing.T) {
	const answer = `{"gameServerName":"relay-x7k2p-9f4qz","ports":[{"name":"default","port":7143}],` +
		`"address":"203.0.113.7","addresses":[{"type":"ExternalIP","address":"203.0.113.7"}],"nodeName":"node-3","source":"local"}`
	var r agones.AllocationResponse
	if err := json.Unmarshal([]byte(answer), &r); err != nil {
		t.Fatal(err)
	}
	if r.GameServerName != "relay-x7k2p-9f4qz" || r.Address != "203.0.113.7" || r.Port("default") != 7143 || r.Port("other") != 0 || r.NodeName != "node-3" {
		t.Errorf("%+v", r)
	}
}
