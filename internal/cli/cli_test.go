package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	newFlags := func(out io.Writer) *flag.FlagSet {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(out)
		fs.Int("n", 1, "a number")
		return fs
	}
	for _, tt := range []struct {
		name       string
		args       []string
		after      error // an error the command meets after parsing
		wantStatus int
		wantOnce   string // what stderr must hold exactly once, if anything
	}{
		{"ok", []string{"-n", "2"}, nil, 0, ""},
		{"help", []string{"-h"}, nil, 0, "Usage of cmd"},
		{"bad flag", []string{"-nope"}, nil, 2, "flag provided but not defined: -nope"},
		{"bad value", []string{"-n", "x"}, nil, 2, `invalid value "x" for flag -n`},
		{"bad argument", nil, &UsageError{Err: errors.New("unexpected arguments")}, 2, "cmd: unexpected arguments"},
		{"failure", nil, errors.New("disk full"), 1, "cmd: disk full"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := Parse(newFlags(&stderr), tt.args)
			if err == nil {
				err = tt.after
			}
			if got := Report("cmd", err, &stderr); got != tt.wantStatus {
				t.Errorf("status %d, want %d (err %v)", got, tt.wantStatus, err)
			}
			if tt.wantOnce == "" {
				if stderr.Len() != 0 {
					t.Errorf("printed %q, want nothing", stderr.String())
				}
			} else if n := strings.Count(stderr.String(), tt.wantOnce); n != 1 {
				t.Errorf("%q printed %d times, want once:\n%s", tt.wantOnce, n, stderr.String())
			}
		})
	}
}
