package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/greedyl2o/greedyl2o/greedy"
)

// meter reports the progress of a long phase (evaluation, f*, benchmarks)
// on stderr: on a terminal one status line rewritten in place at most ten
// times a second, elsewhere (logs, pipes) one line every interval. Lines
// printed with done always appear.
type meter struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	interval time.Duration
	last     time.Time
	width    int // of the status line on a terminal
}

// meterInterval is how often a meter writes to a non-terminal.
const meterInterval = 5 * time.Second

func newMeter(w io.Writer) *meter {
	m := &meter{w: w, tty: isTerminal(w), interval: meterInterval}
	if m.tty {
		m.interval = 100 * time.Millisecond
	}
	m.last = time.Now()
	return m
}

// update shows a status line, unless one was shown less than an interval ago.
func (m *meter) update(format string, a ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if time.Since(m.last) < m.interval {
		return
	}
	m.last = time.Now()
	s := fmt.Sprintf(format, a...)
	if m.tty {
		pad := ""
		if n := len([]rune(s)); n < m.width {
			pad = strings.Repeat(" ", m.width-n)
		}
		fmt.Fprintf(m.w, "\r%s%s", s, pad)
		m.width = len([]rune(s))
		return
	}
	fmt.Fprintln(m.w, s)
}

// done prints a line that stays (replacing the status line on a terminal).
func (m *meter) done(format string, a ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := fmt.Sprintf(format, a...)
	if m.tty && m.width > 0 {
		pad := ""
		if n := len([]rune(s)); n < m.width {
			pad = strings.Repeat(" ", m.width-n)
		}
		fmt.Fprintf(m.w, "\r%s%s\n", s, pad)
		m.width = 0
		return
	}
	fmt.Fprintln(m.w, s)
}

// innerMeterInterval is how often a training log gets a line of the inner
// solver's progress inside a step (on a terminal it is a status line).
const innerMeterInterval = 30 * time.Second

// innerMeters are the status lines of the running trainings, by Env.
var innerMeters sync.Map

// innerProgress shows where the inner solver of a greedy step is: the
// evaluations of its budget, the current step loss and an estimate of the
// time left, on stderr (a status line on a terminal, a line every
// innerMeterInterval elsewhere).
func innerProgress(env *Env) func(greedy.InnerProgress) {
	m := newMeter(env.Stderr)
	if !m.tty {
		m.interval = innerMeterInterval
	}
	innerMeters.Store(env, m)
	return func(p greedy.InnerProgress) {
		of, left := "", ""
		if p.Budget > 0 {
			of = fmt.Sprintf(" of %d", p.Budget)
			left = ", about " + eta(p.Evaluations, p.Budget, p.Elapsed) + " left in the step"
		}
		m.update("step %d: %d%s step-loss evaluations, loss %.8g, %s%s", p.Step, p.Evaluations, of, p.Loss, shortDuration(p.Elapsed), left)
	}
}

// clearStatus removes the inner solver's status line from a terminal
// before a step's row is printed.
func clearStatus(env *Env) {
	if v, ok := innerMeters.Load(env); ok {
		m := v.(*meter)
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.tty && m.width > 0 {
			fmt.Fprintf(m.w, "\r%s\r", strings.Repeat(" ", m.width))
			m.width = 0
		}
		m.last = time.Now()
	}
}

// eta estimates the time left when done of total units took elapsed.
func eta(done, total int, elapsed time.Duration) string {
	if done <= 0 || total <= done {
		if total > 0 && done >= total {
			return "0s"
		}
		return "?"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	return shortDuration(left)
}

// shortDuration formats d as "45s", "3m05s" or "2h03m".
func shortDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// divergeFactor turns --diverge-factor (0: off) into
// greedy.Stop.DivergeFactor (negative: off).
func divergeFactor(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}
