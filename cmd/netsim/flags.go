package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop/netsim"
)

// options are the command's flags, parsed and checked.
type options struct {
	listen, to string
	conditions netsim.Conditions
	seed       uint64
	duration   time.Duration
	maxClients int
}

// usageError is an error in the command's flags: the command exits 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// parseFlags parses args. With -h it prints the usage to stdout and returns flag.ErrHelp; any
// other mistake is a usageError of one line, naming the flag.
func parseFlags(args []string, stdout io.Writer) (options, error) {
	var o options
	var (
		preset                        string
		latency, jitter, reorderDelay time.Duration
		loss, dup, reorder, burstLoss float64
		burstLen                      int
	)
	fs := flag.NewFlagSet("netsim", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, as one line; -h prints below
	fs.StringVar(&o.listen, "listen", "", "the `address` clients send to (required), such as 127.0.0.1:7001")
	fs.StringVar(&o.to, "to", "", "the `address` to forward to (required), such as 127.0.0.1:7000")
	fs.StringVar(&preset, "preset", "none", "start from these conditions: "+strings.Join(netsim.PresetNames(), ", "))
	fs.DurationVar(&latency, "latency", 0, "one-way delay, each way")
	fs.DurationVar(&jitter, "jitter", 0, "each packet's delay is latency ± up to this, uniformly")
	fs.Float64Var(&loss, "loss", 0, "probability that a packet is dropped, 0..1")
	fs.Float64Var(&dup, "dup", 0, "probability that a packet is delivered twice, 0..1")
	fs.Float64Var(&reorder, "reorder", 0, "probability that a packet is held back by -reorder-delay so later ones overtake it, 0..1")
	fs.DurationVar(&reorderDelay, "reorder-delay", netsim.DefaultReorderDelay,
		fmt.Sprintf("how long a held-back packet is held; 0 means %v", netsim.DefaultReorderDelay))
	fs.Float64Var(&burstLoss, "burst-loss", 0, "probability that a loss starts a burst of -burst-len more, 0..1")
	fs.IntVar(&burstLen, "burst-len", 0, "packets dropped after a loss that starts a burst")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random decisions: the same seed and traffic give the same decisions")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long and print the summary; 0 means at SIGINT or SIGTERM")
	fs.IntVar(&o.maxClients, "max-clients", 64, "the most client addresses served; packets from more are refused")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: netsim -listen ADDR -to ADDR [flags]\n\nForwards UDP from -listen to -to and the replies back, making the network bad on purpose.\n\nflags:")
			fs.PrintDefaults()
			return o, err
		}
		return o, usageError{err}
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected arguments %q", fs.Args())
	}
	if o.listen == "" || o.to == "" {
		return o, usagef("-listen and -to are both required (see -h)")
	}
	c, err := netsim.Preset(preset)
	if err != nil {
		return o, usagef("-preset: no preset %q (known: %s)", preset, strings.Join(netsim.PresetNames(), ", "))
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		checkDelay := func(d time.Duration) time.Duration {
			if d < 0 || d > netsim.MaxDelay {
				bad = usagef("-%s: %v is not between 0 and %v", f.Name, d, netsim.MaxDelay)
			}
			return d
		}
		checkProb := func(p float64) float64 {
			if !(p >= 0 && p <= 1) {
				bad = usagef("-%s: %v is not a probability between 0 and 1", f.Name, p)
			}
			if p == 0 {
				return 0 // -0 parses as a negative zero, which would print as -0%
			}
			return p
		}
		switch f.Name {
		case "latency":
			c.Latency = checkDelay(latency)
		case "jitter":
			c.Jitter = checkDelay(jitter)
		case "reorder-delay":
			c.ReorderDelay = checkDelay(reorderDelay)
		case "loss":
			c.Loss = checkProb(loss)
		case "dup":
			c.Dup = checkProb(dup)
		case "reorder":
			c.Reorder = checkProb(reorder)
		case "burst-loss":
			c.BurstLoss = checkProb(burstLoss)
		case "burst-len":
			if burstLen < 0 || burstLen > netsim.MaxBurstLen {
				bad = usagef("-burst-len: %d is not between 0 and %d", burstLen, netsim.MaxBurstLen)
			}
			c.BurstLen = burstLen
		}
	})
	switch {
	case bad != nil:
		return o, bad
	case c.BurstLoss > 0 && c.BurstLen == 0:
		return o, usagef("-burst-loss %v needs a -burst-len above 0", c.BurstLoss)
	case o.duration < 0:
		return o, usagef("-duration: %v is negative", o.duration)
	case o.maxClients < 1 || o.maxClients > maxMaxClients:
		return o, usagef("-max-clients: %d is not between 1 and %d", o.maxClients, maxMaxClients)
	}
	if err := c.Validate(); err != nil { // every field is checked above; this keeps it so
		return o, usageError{err}
	}
	o.conditions = c
	return o, nil
}
