// Command netsim is a UDP proxy that makes a network bad on purpose, for trying a networked
// game (or testing one) under latency, jitter, loss, bursts of loss, duplication and
// reordering on one machine or a LAN:
//
//	netsim -listen 127.0.0.1:7001 -to 127.0.0.1:7000 -preset poor
//
// It forwards what arrives at -listen to -to, and the replies back to whoever sent them: each
// client address gets an upstream socket of its own, so that several clients can share one
// proxy and the server tells them apart. Each direction passes through a netsim.Link under the
// same conditions (each its own generator, from -seed), and a timer-driven queue sends each
// packet on at the time the link gives it.
//
// The conditions come from -preset (none, poor, terrible, mobile, intercontinental) and the
// flags -latency, -jitter, -loss, -dup, -reorder, -reorder-delay, -burst-loss and -burst-len;
// a flag given explicitly overrides the preset's value. The run ends after -duration (0, the
// default, means at SIGINT or SIGTERM), and then prints, for each direction, the packets and
// bytes that came in, what was dropped, duplicated and held back, and what went out.
//
// Nothing a client sends can grow memory without bound: at most -max-clients client addresses
// are served (packets from others are refused and counted, unless one served has been idle
// for 30 s: the new one takes its place), and packets in flight are limited
// in number and bytes (more are dropped and counted as overflow).
//
// Bad flags exit 2 with one message; -h prints the flags and exits 0; a socket that cannot be
// opened exits 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	var usage usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "netsim:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "netsim:", err)
		os.Exit(1)
	}
}

// run runs the proxy until ctx is done or -duration passes, then prints its summary to stdout.
// ready, if not nil, is called with the proxy once it listens (tests read its address and counts).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(*proxy)) error {
	o, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	p, err := newProxy(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "netsim: forwarding %s -> %s, each way: %v; seed %d\n", p.listen.LocalAddr(), p.target, o.conditions, o.seed)
	if ready != nil {
		ready(p)
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	p.run(ctx, stderr)
	p.summary(stdout)
	return nil
}
