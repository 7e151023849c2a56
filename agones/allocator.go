package agones

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AllocationRequest is what a matchmaker asks Agones' allocator service for: a game server of
// the selectors' (tried in order), in JSON as the service's REST gateway takes it (POST
// /gameserverallocation; allocation.proto's AllocationRequest).
type AllocationRequest struct {
	Namespace string `json:"namespace"`
	// Selectors are tried in order until one matches a game server.
	Selectors []Selector `json:"gameServerSelectors,omitempty"`
	// Scheduling is "Packed" (the default: fill nodes first) or "Distributed".
	Scheduling string `json:"scheduling,omitempty"`
	// Metadata is set on the game server allocated.
	Metadata *MetaPatch `json:"metadata,omitempty"`
}

// Selector picks game servers by labels, state and counters.
type Selector struct {
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// State is "READY" (the default) or "ALLOCATED": a high-density game server is
	// allocated again while it has room.
	State    string                     `json:"gameServerState,omitempty"`
	Counters map[string]CounterSelector `json:"counters,omitempty"`
}

// CounterSelector picks game servers by a counter's count and room (capacity less count); 0 for
// a maximum is no maximum.
type CounterSelector struct {
	MinCount     int64 `json:"minCount,omitempty,string"`
	MaxCount     int64 `json:"maxCount,omitempty,string"`
	MinAvailable int64 `json:"minAvailable,omitempty,string"`
	MaxAvailable int64 `json:"maxAvailable,omitempty,string"`
}

// MetaPatch is labels and annotations set on the game server allocated.
type MetaPatch struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// AllocationResponse is the allocator's answer: the game server allocated and where to reach
// it.
type AllocationResponse struct {
	GameServerName string `json:"gameServerName"`
	Ports          []struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	} `json:"ports"`
	Address  string `json:"address"`
	NodeName string `json:"nodeName"`
	Source   string `json:"source"`
}

// Port returns the port named name, or 0.
func (r AllocationResponse) Port(name string) int {
	for _, p := range r.Ports {
		if p.Name == name {
			return int(p.Port)
		}
	}
	return 0
}

// RoomRequest is the request for a high-density game server of fleet in namespace with room
// for one more match on counter (rooms): an Allocated one first, so that servers fill before
// new ones are taken, then a Ready one; packed.
func RoomRequest(namespace, fleet, counter string) AllocationRequest {
	labels := map[string]string{"agones.dev/fleet": fleet}
	room := map[string]CounterSelector{counter: {MinAvailable: 1}}
	return AllocationRequest{
		Namespace: namespace,
		Selectors: []Selector{
			{MatchLabels: labels, State: "ALLOCATED", Counters: room},
			{MatchLabels: labels, State: "READY", Counters: room},
		},
		Scheduling: "Packed",
	}
}

// Allocator is a client of Agones' allocator service, over HTTPS with the client certificate
// the service requires (mutual TLS).
type Allocator struct {
	url  string
	http *http.Client
}

// NewAllocator returns a client of the allocator service at host (host:port), authenticating
// with tc's certificates (Certificates, and RootCAs for the service's).
func NewAllocator(host string, tc *tls.Config) *Allocator {
	return &Allocator{url: "https://" + strings.TrimSuffix(host, "/") + "/gameserverallocation",
		http: &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}}
}

// Allocate asks for a game server.
func (a *Allocator) Allocate(ctx context.Context, req AllocationRequest) (AllocationResponse, error) {
	var res AllocationResponse
	body, err := json.Marshal(req)
	if err != nil {
		return res, fmt.Errorf("agones: allocate: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return res, fmt.Errorf("agones: allocate: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := a.http.Do(hr)
	if err != nil {
		return res, fmt.Errorf("agones: allocate: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return res, fmt.Errorf("agones: allocate: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return res, &Error{Method: http.MethodPost, Path: "/gameserverallocation", Status: resp.StatusCode, Message: string(bytes.TrimSpace(data))}
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return res, fmt.Errorf("agones: allocate: the answer: %w", err)
	}
	return res, nil
}
