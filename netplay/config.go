package netplay

import "fmt"

// check reports the first bad value of cfg, in an error that names the field.
func (cfg *Config[I]) check() error {
	bad := func(field string, value any, reason string) error {
		return fmt.Errorf("netplay: Config.%s = %v: %s", field, value, reason)
	}
	n := len(cfg.Players)
	if n < 2 || n > MaxPlayers {
		return bad("Players", n, fmt.Sprintf("a session has 2 to %d players", MaxPlayers))
	}
	if cfg.Relay != nil {
		if err := cfg.checkRelay(bad); err != nil {
			return err
		}
	}
	locals := 0
	for h, p := range cfg.Players {
		switch {
		case cfg.Relay != nil:
			if p.Local {
				locals++
			}
		case p.Local && p.Addr != nil:
			return bad(fmt.Sprintf("Players[%d].Addr", h), p.Addr, "a local player has no address")
		case !p.Local && p.Addr == nil:
			return bad(fmt.Sprintf("Players[%d].Addr", h), nil, "a remote player needs its peer's address")
		case p.Local:
			locals++
		}
	}
	if locals == 0 && !cfg.spectate {
		return bad("Players", n, "no player is local: use NewSpectator to watch a game")
	}
	if cfg.Snapshots && cfg.Relay == nil {
		return bad("Snapshots", true, "a relayed match's players and spectators take snapshots, not peers")
	}
	if cfg.SparseSaving && cfg.Record != nil {
		return bad("SparseSaving", true, "cannot be used with Record: a recording holds every tick's checksum")
	}
	if cfg.Spectators < 0 || cfg.Spectators > MaxSpectators {
		return bad("Spectators", cfg.Spectators, fmt.Sprintf("must be 0 to %d", MaxSpectators))
	}
	if locals == n {
		return bad("Players", n, "every player is local: use a SyncTest, or add a remote player")
	}
	if cfg.Codec == nil {
		return bad("Codec", nil, "required")
	}
	if sz := cfg.Codec.Size(); sz < 1 || sz > MaxInputSize {
		return bad("Codec", sz, fmt.Sprintf("Size must be 1 to %d bytes", MaxInputSize))
	}
	if cfg.TickRate < 0 || cfg.TickRate > 1000 {
		return bad("TickRate", cfg.TickRate, "must be 0 (the default) to 1000")
	}
	if cfg.InputDelay < 0 || cfg.InputDelay > MaxInputDelay {
		return bad("InputDelay", cfg.InputDelay, fmt.Sprintf("must be 0 to %d", MaxInputDelay))
	}
	if cfg.PredictionWindow < 0 || cfg.PredictionWindow > MaxPredictionWindow {
		return bad("PredictionWindow", cfg.PredictionWindow, fmt.Sprintf("must be 0 (the default) to %d", MaxPredictionWindow))
	}
	if cfg.Lockstep && cfg.PredictionWindow != 0 {
		return bad("PredictionWindow", cfg.PredictionWindow, "must be 0 with Lockstep")
	}
	if cfg.DisconnectTimeout < 0 {
		return bad("DisconnectTimeout", cfg.DisconnectTimeout, "negative")
	}
	timeout := cfg.DisconnectTimeout
	if timeout == 0 {
		timeout = DefaultDisconnectTimeout
	}
	if cfg.DisconnectNotice < 0 || cfg.DisconnectNotice != 0 && cfg.DisconnectNotice >= timeout {
		return bad("DisconnectNotice", cfg.DisconnectNotice, fmt.Sprintf("must be 0 (the default) or positive and less than the timeout, %v", timeout))
	}
	return nil
}
