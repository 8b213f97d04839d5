package cmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/spf13/pflag"
)

// Version is the l2o version string.
const Version = "0.1.0"

// UsageError marks errors caused by bad input (flags, files): exit status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usagef returns a UsageError with a formatted message.
func usagef(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// asUsage wraps err as a UsageError (nil stays nil).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	var u *UsageError
	if errors.As(err, &u) {
		return err
	}
	return &UsageError{err}
}

// resumeUsage turns a refused resume (greedy.ErrCannotResume: another
// configuration, an unreadable checkpoint) into a usage error, exit 2.
func resumeUsage(err error) error {
	if errors.Is(err, greedy.ErrCannotResume) {
		return asUsage(err)
	}
	return err
}

// Env is what a command sees of the world.
type Env struct {
	Stdout, Stderr io.Writer
}

// Command is one l2o subcommand.
type Command struct {
	Name    string // e.g. "train greedy"
	Summary string
	Run     func(env *Env, args []string) error
}

var commands = map[string]*Command{}

// register adds a subcommand.
func register(c *Command) { commands[c.Name] = c }

// Main runs l2o with the given arguments (without the program name) and
// returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		return 0
	}
	// Longest matching command name: "train greedy" before "train".
	var cmd *Command
	var rest []string
	for n := min(len(args), 3); n >= 1; n-- {
		if c, ok := commands[strings.Join(args[:n], " ")]; ok {
			cmd, rest = c, args[n:]
			break
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "l2o: unknown command %q\n\n", strings.Join(args, " "))
		printUsage(stderr)
		return 2
	}
	err := cmd.Run(env, rest)
	if err == nil {
		return 0
	}
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "l2o %s: %v\n", cmd.Name, err)
	var u *UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "l2o — greedy learning to optimize")
	fmt.Fprintln(w, "\nUsage: l2o COMMAND [flags]   (l2o COMMAND --help for the flags)")
	fmt.Fprintln(w, "\nCommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-18s %s\n", n, commands[n].Summary)
	}
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(env *Env, name, usage string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: l2o %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, turning flag errors into usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return &UsageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	return nil
}

func init() {
	register(&Command{Name: "version", Summary: "print the version", Run: runVersion})
}

func runVersion(env *Env, args []string) error {
	fs := newFlags(env, "version", "version")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "l2o %s\n", Version)
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(env.Stdout, "%s\n", bi.GoVersion)
		for _, d := range bi.Deps {
			if strings.HasPrefix(d.Path, "gorgonia.org/") || strings.HasPrefix(d.Path, "gonum.org/") {
				fmt.Fprintf(env.Stdout, "%s %s\n", d.Path, d.Version)
			}
		}
	}
	return nil
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
