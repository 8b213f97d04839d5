package cmd

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// interrupts turns Ctrl-C (SIGINT, or SIGTERM) during a training run into
// a clean stop. The first signal asks the run to stop after the step in
// progress, whose checkpoint is then written completely; the second
// abandons that step at once: the file being written is finished, the
// temporary files in the output directory are removed, the --resume
// command is printed and the process exits with status 130. Either way the
// checkpoint holds every completed step.
type interrupts struct {
	env    *Env
	dir    string
	resume string
	stop   atomic.Bool
	ch     chan os.Signal
	quit   chan struct{}
}

// catchInterrupts starts catching signals for a run writing into dir that
// resumeCmd continues; release stops it.
func catchInterrupts(env *Env, dir, resumeCmd string) *interrupts {
	in := &interrupts{env: env, dir: dir, resume: resumeCmd, ch: make(chan os.Signal, 2), quit: make(chan struct{})}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go in.loop()
	return in
}

func (in *interrupts) loop() {
	for {
		select {
		case <-in.quit:
			return
		case sig := <-in.ch:
			if !in.stop.Swap(true) {
				fmt.Fprintln(in.env.Stderr, "\n"+interruptNote(sig))
				continue
			}
		}
		checkpoint.HoldWrites()
		for _, p := range checkpoint.RemoveTemps(in.dir) {
			fmt.Fprintf(in.env.Stderr, "removed %s\n", p)
		}
		fmt.Fprintf(in.env.Stderr, "\ninterrupt: abandoned the step in progress; the checkpoint in %s holds every completed step. Continue with:\n  %s\n", in.dir, in.resume)
		os.Exit(130)
	}
}

// interruptNote says what the first signal does and how to abandon the
// step: Ctrl-C again at a terminal, the same signal again (kill) for
// SIGTERM.
func interruptNote(sig os.Signal) string {
	again := "Ctrl-C again"
	if sig == syscall.SIGTERM {
		again = fmt.Sprintf("send SIGTERM again: kill %d", os.Getpid())
	}
	return fmt.Sprintf("%s: finishing the step in progress and its checkpoint (%s to abandon the step)", signalName(sig), again)
}

// signalName names a signal as users know it.
func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "interrupt"
}

// Stop reports whether the run was asked to stop.
func (in *interrupts) Stop() bool { return in.stop.Load() }

// release stops catching signals.
func (in *interrupts) release() {
	signal.Stop(in.ch)
	close(in.quit)
}

// interrupted is the error of a run that stopped on request.
func (in *interrupts) interrupted(what string) error {
	return &interruptedError{fmt.Sprintf("interrupted: %s; the checkpoint in %s is complete. Continue with:\n  %s", what, in.dir, in.resume)}
}

// resumeCommand returns the command line that continues a run: the
// command name and its arguments with --resume added (once), quoted for a
// POSIX shell.
func resumeCommand(name string, args []string) string {
	parts := []string{"l2o", name}
	has := false
	for _, a := range args {
		if a == "--resume" || a == "--resume=true" {
			has = true
		}
		parts = append(parts, shellQuote(a))
	}
	if !has {
		parts = append(parts, "--resume")
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
