// Package cli is what the project's commands share about their command lines: how a bad flag
// or argument is told apart from a failure, and the exit status each outcome gives.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// UsageError is a bad flag or argument: the command exits 2 for it, as the flag package's
// ExitOnError does. Printed says the flag package has already printed it, with the usage, so
// that it is printed once.
type UsageError struct {
	Err     error
	Printed bool
}

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *UsageError) Unwrap() error { return e.Err }

// Parse parses args with fs, which must have been made with flag.ContinueOnError. It returns
// nil, flag.ErrHelp for -h (the flag package has printed the usage), or a *UsageError for a
// bad flag, which the flag package has printed.
func Parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &UsageError{Err: err, Printed: true}
}

// Report prints err to stderr after the command's name, unless the flag package has printed it
// already, and returns the exit status for it: 0 for nil or flag.ErrHelp, 2 for a *UsageError,
// 1 for any other error.
func Report(name string, err error, stderr io.Writer) int {
	var ue *UsageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if !ue.Printed {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
		}
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}
