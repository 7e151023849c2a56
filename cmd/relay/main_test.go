package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gameloop-go/gameloop/internal/relaytest"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/internal/cli"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/relay"
	"github.com/gameloop-go/gameloop/replay"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestBadFlags: a setting out of range, a missing mode or a bad key file is refused before
// anything is served, with exit status 2 for the flags and 1 for the file, naming the flag.
func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.keys")
	os.WriteFile(short, []byte("1 00ff\n"), 0o600)
	for _, c := range []struct {
		args   []string
		status int
		says   string
	}{
		{nil, 2, "no -keys"},
		{[]string{"-open", "-keys", short}, 2, "-open and -keys"},
		{[]string{"-open", "-max-matches", "0"}, 2, "-max-matches"},
		{[]string{"-open", "-timeout", "0s"}, 2, "-timeout"},
		{[]string{"-open", "-min-players", "9"}, 2, "-min-players"},
		{[]string{"-open", "-max-snapshot", "0"}, 2, "-max-snapshot"},
		{[]string{"-open", "-snapshot-every", "-1"}, 2, "-snapshot-every"},
		{[]string{"-open", "-snapshot-every", "2000"}, 1, "SnapshotEvery = 2000: want at most half of History"},
		{[]string{"-open", "extra"}, 2, "unexpected arguments"},
		{[]string{"-token", "-match", "m"}, 2, "-token needs -keys"},
		{[]string{"-keys", short}, 1, "at least 16 bytes"},
		{[]string{"-keys", filepath.Join(dir, "none")}, 1, "no such file"},
		{[]string{"-open", "-listen", "nowhere:x"}, 1, "-listen"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), c.args, &bytes.Buffer{}, &stderr, nil)
		status := exitStatus(err, &stderr)
		if status != c.status || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("relay %q: status %d, %q; want %d saying %q", c.args, status, stderr.String(), c.status, c.says)
		}
	}
}

func exitStatus(err error, stderr *bytes.Buffer) int { return cli.Report("relay", err, stderr) }

// TestGenkeyAndToken: -genkey adds keys to a file that -keys reads, each under the next id,
// and -token makes a token with the latest that the relay takes (TestServe plays with such
// tokens).
func TestGenkeyAndToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.keys")
	for want := 1; want <= 2; want++ {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"-genkey", path}, &out, &bytes.Buffer{}, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), fmt.Sprintf("key %d added", want)) {
			t.Errorf("-genkey: %q", out.String())
		}
	}
	keys, err := readKeys(path)
	if err != nil || len(keys[1]) != 32 || len(keys[2]) != 32 || bytes.Equal(keys[1], keys[2]) {
		t.Fatalf("readKeys: %v, %v", keys, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file: %v, %v; want mode 0600", fi, err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-keys", path, "-token", "-match", "m", "-slot", "1"}, &out, &bytes.Buffer{}, nil); err != nil {
		t.Fatal(err)
	}
	tok, err := hex.DecodeString(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := relay.MakeToken(keys[2], 2, "m", 1, time.Now().Add(time.Hour))
	if len(tok) != len(want) || tok[1] != 2 || !bytes.Equal(tok[10:len(tok)-16], want[10:len(want)-16]) {
		t.Errorf("token % x, want one like % x", tok, want)
	}
}

// play runs a player's session on real time until it ends or stop is closed, and returns how
// it ended.
func play(s *netplay.Session[byte], h int, stop <-chan struct{}) error {
	defer s.Close()
	g := relaytest.NewGame(s.Slots())
	start := time.Now()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		s.AddLocalInput(h, byte(i/5%3))
		reqs, err := s.Advance(time.Since(start))
		switch {
		case errors.Is(err, netplay.ErrPredictionThreshold), errors.Is(err, netplay.ErrNotSynchronized):
			continue
		case err != nil:
			return err
		}
		if err := netplay.Run(reqs, g); err != nil {
			return err
		}
	}
}

// TestServe: a relay taking tokens plays a match of two players over real UDP on 127.0.0.1,
// serves its metrics (in Prometheus' format) and matches over HTTP, and on SIGTERM (its
// context cancelled) ends the match, the players' sessions ending with ErrEnded, and leaves
// a recording of it that replays.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "relay.keys")
	key := bytes.Repeat([]byte{7}, 32)
	os.WriteFile(keyFile, []byte("# test\n3 "+hex.EncodeToString(key)+"\n"), 0o600)
	recDir := filepath.Join(dir, "rec")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-keys", keyFile, "-record", recDir},
			&bytes.Buffer{}, &stderr, func(a, m string) { addrs <- [2]string{a, m} })
	}()
	var relayAddr, metricsAddr string
	select {
	case a := <-addrs:
		relayAddr, metricsAddr = a[0], a[1]
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	raddr, _ := net.ResolveUDPAddr("udp", relayAddr)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for h := range 2 {
		tok, err := relay.MakeToken(key, 3, "final", h, time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		players := make([]netplay.Player, 2)
		players[h].Local = true
		s, err := netplay.NewSession(net.PacketConn(conn), netplay.Config[byte]{Players: players, Codec: relaytest.ByteCodec{}, Relay: raddr, Match: "final", Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); errs[h] = play(s, h, stop) }()
	}
	// Until the match has run 2 s, however long that takes.
	deadline := time.Now().Add(time.Minute)
	var list []matchInfo
	for {
		list = nil
		if resp, err := http.Get("http://" + metricsAddr + "/matches"); err == nil {
			json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
		}
		if len(list) == 1 && list[0].Confirmed >= 120 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("after a minute: %+v; players %v; %s", list, errs, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if list[0].Name != "final" || list[0].Joined != 2 || !list[0].Started {
		t.Errorf("GET /matches: %+v", list)
	}
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	for name, want := range map[string]float64{"relay_matches": 1, "relay_players": 2} {
		f := families[name]
		if f == nil || f.Metric[0].GetGauge().GetValue() != want {
			t.Errorf("%s: %v, want %v", name, f, want)
		}
	}
	for _, name := range []string{"relay_packets_in_total", "relay_refused_total", "relay_tick_lateness_seconds", "relay_dropped_total"} {
		if families[name] == nil {
			t.Errorf("no %s in /metrics", name)
		}
	}
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{"DELETE", "/matches/nope", http.StatusNotFound},
		{"POST", "/matches/final/drop?slot=x", http.StatusBadRequest},
		{"POST", "/matches/final/drop?slot=9", http.StatusBadRequest},
		{"POST", "/matches/nope/drop?slot=0", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(c.method, "http://"+metricsAddr+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.code)
		}
	}
	cancel() // what SIGTERM does
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	wg.Wait()
	for h, err := range errs {
		if !errors.Is(err, netplay.ErrEnded) {
			t.Errorf("player %d: %v, want ErrEnded", h, err)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(recDir, "final-*.rec"))
	if len(recs) != 1 {
		t.Fatalf("recordings %v", recs)
	}
	f, err := os.Open(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := replay.Play(context.Background(), f, netplay.NewReplayGame[byte](relaytest.NewGame(1), relaytest.ByteCodec{}, 2), nil)
	if err != nil || !res.Matched() || res.Ticks < 120 {
		t.Fatalf("the recording replayed: %+v, %v", res, err)
	}
	if !strings.Contains(stderr.String(), "taking tokens of 1 key") || !strings.Contains(stderr.String(), "shut down") {
		t.Errorf("log: %s", stderr.String())
	}
}
