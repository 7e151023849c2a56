// Package netsim makes a network bad on purpose: latency, jitter, loss, bursts of loss,
// duplication and reordering, the same model in two forms.
//
//   - Link is the model: given the time a packet is sent, it decides, from a seeded generator,
//     whether the packet is dropped and when its one or two copies arrive. It is pure and
//     deterministic, and reads no clock.
//   - Network is an in-memory network on simulated time, whose endpoints are net.PacketConns
//     and whose routes are Links: tests of networked code (rollback netplay, say) play minutes
//     of a game in seconds, and the same seed gives the same run.
//
// The command cmd/netsim puts the same Link between two programs over real UDP, as a proxy.
//
// Conditions name one direction of a link; Preset has some named ones (poor, terrible,
// mobile, intercontinental), as fighting-game netcode is commonly tested under.
package netsim
