package gameloop

import (
	"slices"
	"testing"
	"time"
)

// The benchmarks below measure the pacer on the real clock. They assert nothing: they report
// how late the waits ended (p50, p99 and max, in µs) and the CPU time the process used per
// wait, figures that depend on the machine and on what else runs on it. Run them with
//
//	go test -run '^$' -bench Pacer -benchtime 480x
//
// (480 waits: 8 s at 60 Hz). cmd/loopbench compares the pacer with other strategies.

// benchPacer waits b.N times for the slots of a grid at hz with p, and reports the figures.
func benchPacer(b *testing.B, hz int, p *Pacer, now func() time.Duration) {
	period := time.Second / time.Duration(hz)
	late := make([]float64, 0, b.N)
	cpu0 := processCPUTime()
	b.ResetTimer()
	epoch := now()
	for i := 1; i <= b.N; i++ {
		deadline := epoch + time.Duration(i)*period
		p.WaitUntil(deadline, nil)
		late = append(late, float64(now()-deadline)/float64(time.Microsecond))
	}
	b.StopTimer()
	cpu := processCPUTime() - cpu0
	slices.Sort(late)
	q := func(f float64) float64 { return late[min(len(late)-1, int(f*float64(len(late))))] }
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(late[len(late)-1], "max-µs")
	if cpu >= 0 {
		b.ReportMetric(100*cpu.Seconds()/(time.Duration(b.N)*period).Seconds(), "cpu-%")
	}
	st := p.Stats()
	b.ReportMetric(float64(st.Margin)/float64(time.Microsecond), "margin-µs")
	b.ReportMetric(float64(st.Spun)/float64(time.Microsecond)/float64(b.N), "spun-µs/wait")
}

func BenchmarkPacer(b *testing.B) {
	for _, hz := range []int{60, 240} {
		b.Run(rateName(hz), func(b *testing.B) {
			c := NewSystemClock()
			benchPacer(b, hz, c.Pacer(), c.Now)
		})
	}
}

// BenchmarkPacerWithoutCoarseWait is the pacer with its Go timer stage left out: the long
// clock_nanosleep covers the whole wait. The difference in CPU with BenchmarkPacer is what the
// interruptible coarse wait costs.
func BenchmarkPacerWithoutCoarseWait(b *testing.B) {
	for _, hz := range []int{60, 240} {
		b.Run(rateName(hz), func(b *testing.B) {
			c := NewSystemClock()
			p := c.Pacer()
			if p.precise == nil {
				b.Skip("no precise sleep on this platform")
			}
			p.coarse = func(time.Duration, <-chan struct{}) bool { return false }
			benchPacer(b, hz, p, c.Now)
		})
	}
}

// BenchmarkPacerPassedDeadline is the cost of a wait whose deadline has passed: what the loop
// pays for asking when it is already late.
func BenchmarkPacerPassedDeadline(b *testing.B) {
	c := NewSystemClock()
	p := c.Pacer()
	b.ReportAllocs()
	for b.Loop() {
		p.WaitUntil(0, nil)
	}
}

func rateName(hz int) string {
	return time.Duration(time.Second / time.Duration(hz)).String()
}
