// Package agones is a small client of the SDK server that Agones runs beside each game server
// (https://agones.dev): the REST API its SDKs speak, over HTTP and JSON, with no Agones module.
// A game server process tells it that it is Ready to take players, pings its Health, learns
// that it was Allocated (WatchGameServer), sets labels and annotations, counts its rooms and
// players with the beta API's Counters and Lists (Agones' "high density" game servers, which
// serve many matches each), and asks to be Shut down once it has drained.
//
// Agones sets AGONES_SDK_HTTP_PORT in a game server's pod: FromEnv makes a client of it, and
// reports whether there is one. Every call takes a context and returns the SDK server's error,
// wrapped; none retries: a health ping that fails is for the caller to log and send again
// (Pinger does), never a reason to stop serving.
package agones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

// EnvPort is the environment variable that holds the SDK server's HTTP port in a game server's
// pod.
const EnvPort = "AGONES_SDK_HTTP_PORT"

// Client is a client of one SDK server. It is safe for concurrent use.
type Client struct {
	base string // http://host:port
	http *http.Client
}

// New returns a client of the SDK server at base, such as "http://localhost:9358", using hc
// (nil: a client with a 10 s timeout per request, but for WatchGameServer's stream).
func New(base string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agones: New(%q): not an http:// URL of an SDK server", base)
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: u.Scheme + "://" + u.Host, http: hc}, nil
}

// FromEnv returns a client of the SDK server whose port EnvPort gives, on localhost, and true;
// or nil and false where EnvPort is not set (not on Agones). A value that is not a port is an
// error.
func FromEnv() (*Client, bool, error) {
	v, ok := os.LookupEnv(EnvPort)
	if !ok || v == "" {
		return nil, false, nil
	}
	port, err := strconv.Atoi(v)
	if err != nil || port < 1 || port > 65535 {
		return nil, true, fmt.Errorf("agones: %s=%q is not a port", EnvPort, v)
	}
	c, err := New("http://localhost:"+strconv.Itoa(port), nil)
	return c, true, err
}

// Locate returns the client of the SDK server at url (a command's -agones flag) if it is not
// empty, else FromEnv's: nil, and no error, where neither names one (not on Agones). An error
// names which was bad.
func Locate(url string) (*Client, error) {
	if url != "" {
		c, err := New(url, nil)
		if err != nil {
			return nil, fmt.Errorf("-agones: %w", err)
		}
		return c, nil
	}
	c, _, err := FromEnv()
	return c, err
}

// requestTimeout bounds each call but WatchGameServer.
const requestTimeout = 10 * time.Second

// do sends a request with body (JSON-encoded, or {} if nil) and decodes the answer into out,
// if not nil.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var in io.Reader = bytes.NewReader([]byte("{}"))
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, in)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Message string }
		if json.Unmarshal(data, &e) == nil && e.Message != "" {
			return &Error{Method: method, Path: path, Status: resp.StatusCode, Message: e.Message}
		}
		return &Error{Method: method, Path: path, Status: resp.StatusCode, Message: string(bytes.TrimSpace(data))}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("agones: %s %s: the answer: %w", method, path, err)
		}
	}
	return nil
}

// Error is an error the SDK server answered.
type Error struct {
	Method, Path string
	Status       int    // the HTTP status
	Message      string // the SDK server's
}

func (e *Error) Error() string {
	return fmt.Sprintf("agones: %s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

// Ready tells Agones that the game server is ready to take players: its state becomes Ready,
// and an allocation may pick it.
func (c *Client) Ready(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/ready", nil, nil)
}

// Health pings: a game server that does not ping for its health check's period (and failure
// threshold) is taken for unhealthy and restarted.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/health", nil, nil)
}

// Allocate marks the game server Allocated itself, as an allocation does (for a game server
// that allocates itself, and for tests).
func (c *Client) Allocate(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/allocate", nil, nil)
}

// Shutdown tells Agones that the game server is done: its state becomes Shutdown, and its pod
// is deleted.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/shutdown", nil, nil)
}

// SetLabel sets a label on the GameServer, its key prefixed "agones.dev/sdk-" by Agones.
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	return c.do(ctx, http.MethodPut, "/metadata/label", keyValue{key, value}, nil)
}

// SetAnnotation sets an annotation on the GameServer, its key prefixed "agones.dev/sdk-".
func (c *Client) SetAnnotation(ctx context.Context, key, value string) error {
	return c.do(ctx, http.MethodPut, "/metadata/annotation", keyValue{key, value}, nil)
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// GameServer is what the SDK server tells of the game server (the fields used here).
type GameServer struct {
	ObjectMeta struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"object_meta"`
	Status struct {
		// State is "Scheduled", "RequestReady", "Ready", "Allocated", "Reserved",
		// "Unhealthy", "Shutdown", ...
		State    string             `json:"state"`
		Address  string             `json:"address"`
		Counters map[string]Counter `json:"counters"`
		Lists    map[string]List    `json:"lists"`
	} `json:"status"`
}

// GameServer returns the game server's record.
func (c *Client) GameServer(ctx context.Context) (GameServer, error) {
	var gs GameServer
	err := c.do(ctx, http.MethodGet, "/gameserver", nil, &gs)
	return gs, err
}

// WatchGameServer calls f with the game server's record each time it changes (an allocation,
// a label), until ctx ends or the stream breaks, and returns why. Call it again to watch on.
func (c *Client) WatchGameServer(ctx context.Context, f func(GameServer)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/watch/gameserver", nil)
	if err != nil {
		return fmt.Errorf("agones: watch: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("agones: watch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return &Error{Method: http.MethodGet, Path: "/watch/gameserver", Status: resp.StatusCode}
	}
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		// A line is a result, or the error that ends the stream (grpc-gateway's).
		var msg struct {
			Result *GameServer `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := dec.Decode(&msg); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("agones: watch: %w", err)
		}
		switch {
		case msg.Error != nil:
			return &Error{Method: http.MethodGet, Path: "/watch/gameserver", Status: resp.StatusCode, Message: fmt.Sprintf("%s (code %d)", msg.Error.Message, msg.Error.Code)}
		case msg.Result != nil:
			f(*msg.Result)
		}
	}
}

// Counter is a counter of the GameServer (the beta Counters and Lists API): a count within a
// capacity, such as the rooms a high-density game server runs.
type Counter struct {
	Name     string `json:"name,omitempty"`
	Count    int64  `json:"count,string"`
	Capacity int64  `json:"capacity,string"`
}

// Counter returns counter name.
func (c *Client) Counter(ctx context.Context, name string) (Counter, error) {
	var ct Counter
	err := c.do(ctx, http.MethodGet, "/v1beta1/counters/"+url.PathEscape(name), nil, &ct)
	return ct, err
}

// SetCount sets counter name's count, and returns the SDK server's answer: the counter in
// local mode; Agones' SDK server in a cluster (v1.56) answers with an empty one, so read the
// counter with Counter. So do AddCount and SetCapacity, and the list's AddListValue and
// RemoveListValue with their list.
func (c *Client) SetCount(ctx context.Context, name string, count int64) (Counter, error) {
	var ct Counter
	err := c.do(ctx, http.MethodPatch, "/v1beta1/counters/"+url.PathEscape(name), map[string]string{"count": strconv.FormatInt(count, 10)}, &ct)
	return ct, err
}

// AddCount adds diff (negative to take away) to counter name's count, within its capacity,
// and returns the counter.
func (c *Client) AddCount(ctx context.Context, name string, diff int64) (Counter, error) {
	var ct Counter
	err := c.do(ctx, http.MethodPatch, "/v1beta1/counters/"+url.PathEscape(name), map[string]string{"countDiff": strconv.FormatInt(diff, 10)}, &ct)
	return ct, err
}

// SetCapacity sets counter name's capacity, and returns the counter.
func (c *Client) SetCapacity(ctx context.Context, name string, capacity int64) (Counter, error) {
	var ct Counter
	err := c.do(ctx, http.MethodPatch, "/v1beta1/counters/"+url.PathEscape(name), map[string]string{"capacity": strconv.FormatInt(capacity, 10)}, &ct)
	return ct, err
}

// List is a list of the GameServer (the beta API): values within a capacity, such as the
// players a game server serves.
type List struct {
	Name     string   `json:"name,omitempty"`
	Capacity int64    `json:"capacity,string"`
	Values   []string `json:"values"`
}

// List returns list name.
func (c *Client) List(ctx context.Context, name string) (List, error) {
	var l List
	err := c.do(ctx, http.MethodGet, "/v1beta1/lists/"+url.PathEscape(name), nil, &l)
	return l, err
}

// AddListValue adds value to list name, and returns the list.
func (c *Client) AddListValue(ctx context.Context, name, value string) (List, error) {
	var l List
	err := c.do(ctx, http.MethodPost, "/v1beta1/lists/"+url.PathEscape(name)+":addValue", map[string]string{"value": value}, &l)
	return l, err
}

// RemoveListValue takes value out of list name, and returns the list.
func (c *Client) RemoveListValue(ctx context.Context, name, value string) (List, error) {
	var l List
	err := c.do(ctx, http.MethodPost, "/v1beta1/lists/"+url.PathEscape(name)+":removeValue", map[string]string{"value": value}, &l)
	return l, err
}

// Pinger pings the SDK server's health every Period until its context ends, calling Logf with
// each failure (and again once a ping goes through after failures): a ping that fails is
// retried at the next period, never fatal to what the game server serves.
type Pinger struct {
	Client *Client
	Period time.Duration                 // 0: 2 s
	Logf   func(format string, a ...any) // nil: failures are not logged
}

// Run pings until ctx ends.
func (p Pinger) Run(ctx context.Context) {
	period := p.Period
	if period <= 0 {
		period = 2 * time.Second
	}
	t := time.NewTicker(period)
	defer t.Stop()
	failing := false
	for {
		err := p.Client.Health(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && p.Logf != nil:
			p.Logf("agones: health ping failed (retrying every %v): %v", period, err)
		case err == nil && failing && p.Logf != nil:
			p.Logf("agones: health pings go through again")
		}
		failing = err != nil
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ErrNoSDK is returned where no SDK server is configured.
var ErrNoSDK = errors.New("agones: no SDK server (AGONES_SDK_HTTP_PORT is not set)")
