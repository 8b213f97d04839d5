package cmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
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
	if errors.Is(err, checkpoint.ErrCannotResume) {
		return asUsage(err)
	}
	return err
}

// Env is what a command sees of the world.
type Env struct {
	Stdout, Stderr io.Writer
	// Args are the arguments Main was given (without the program name), for
	// the provenance every output records.
	Args []string
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
// returns the exit status: 0 on success (and for help), 2 for usage and
// input errors (bad flags, unreadable, corrupt or mismatched files, an
// output directory in use), 1 for failed runs, 130 for an interrupted one.
func Main(args []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr, Args: args}
	if len(args) == 0 {
		printUsage(stdout)
		return 0
	}
	switch args[0] {
	case "-h", "--help", "-help":
		printUsage(stdout)
		return 0
	case "--version", "-version", "-V":
		return exitCode(env, "version", runVersion(env, args[1:]))
	case "help":
		// l2o help CMD [SUB]: the command's help, or a group's commands.
		if len(args) == 1 {
			printUsage(stdout)
			return 0
		}
		return Main(append(append([]string(nil), args[1:]...), "--help"), stdout, stderr)
	}
	cmd, rest := lookup(args)
	if cmd == nil {
		if subs := group(args[0]); len(subs) > 0 {
			if len(args) >= 2 && isHelp(args[1]) {
				printGroup(stdout, args[0], subs)
				return 0
			}
			if len(args) == 1 {
				fmt.Fprintf(stderr, "l2o %s: choose a subcommand\n\n", args[0])
			} else {
				fmt.Fprintf(stderr, "l2o: unknown command %q\n\n", strings.Join(args[:2], " "))
			}
			printGroup(stderr, args[0], subs)
			return 2
		}
		fmt.Fprintf(stderr, "l2o: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	return exitCode(env, cmd.Name, cmd.Run(env, rest))
}

// lookup returns the command named by the longest prefix of args ("train
// greedy" before "train") and the remaining arguments.
func lookup(args []string) (*Command, []string) {
	for n := min(len(args), 3); n >= 1; n-- {
		if c, ok := commands[strings.Join(args[:n], " ")]; ok {
			return c, args[n:]
		}
	}
	return nil, nil
}

// group returns the commands "name SUB" (e.g. "train greedy" for "train"),
// sorted.
func group(name string) []string {
	var subs []string
	for n := range commands {
		if strings.HasPrefix(n, name+" ") {
			subs = append(subs, n)
		}
	}
	sort.Strings(subs)
	return subs
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

func printGroup(w io.Writer, name string, subs []string) {
	fmt.Fprintf(w, "Usage: l2o %s SUBCOMMAND [flags]   (l2o %s SUBCOMMAND --help for the flags)\n\nSubcommands:\n", name, name)
	for _, n := range subs {
		fmt.Fprintf(w, "  %-18s %s\n", n, commands[n].Summary)
	}
}

// interruptedError ends a run stopped by the user (exit status 130).
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return e.msg }

// exitCode prints err (if any) and returns the exit status for it.
func exitCode(env *Env, name string, err error) int {
	if err == nil || errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(env.Stderr, "l2o %s: %v\n", name, err)
	var ie *interruptedError
	if errors.As(err, &ie) {
		return 130
	}
	if isUsage(err) {
		return 2
	}
	return 1
}

// isUsage reports whether err is a usage or input error (exit 2): a
// UsageError, a directory held by another run, a refused resume, a file
// whose checksum does not match its manifest.
func isUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u) || errors.Is(err, checkpoint.ErrLocked) || errors.Is(err, checkpoint.ErrCannotResume) || errors.Is(err, checkpoint.ErrChecksum) || errors.Is(err, models.ErrVersion) || errors.Is(err, problem.ErrFirstOrderOnly)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "l2o — greedy learning to optimize")
	fmt.Fprintln(w, "\nUsage: l2o COMMAND [flags]   (l2o COMMAND --help or l2o help COMMAND for the flags; l2o --version)")
	fmt.Fprintln(w, "\nCommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-18s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nExit status: 0 success, 1 a failed run, 2 bad flags or input files (or an output directory in use), 130 interrupted.")
}

// flagSetNames maps a flag set made by newFlags to its command's name.
var flagSetNames sync.Map

// newFlags returns a flag set that reports errors instead of exiting; its
// help (--help) goes to standard output.
func newFlags(env *Env, name, usage string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(env.Stdout)
	flagSetNames.Store(fs, name)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(env.Stdout, "Usage: l2o %s\n", usage)
		if c, ok := commands[name]; ok && c.Summary != "" {
			fmt.Fprintf(env.Stdout, "\n%s.\n", strings.ToUpper(c.Summary[:1])+c.Summary[1:])
		}
		fmt.Fprintf(env.Stdout, "\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, turning flag errors into usage errors. Floating-point
// flags must be finite: NaN and ±Inf are usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		name, _ := flagSetNames.Load(fs)
		return &UsageError{fmt.Errorf("%w (l2o %v --help lists the flags)", err, name)}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	var bad error
	fs.Visit(func(f *pflag.Flag) {
		if bad != nil {
			return
		}
		var vs []float64
		switch f.Value.Type() {
		case "float64":
			v, _ := fs.GetFloat64(f.Name)
			vs = []float64{v}
		case "float32":
			v, _ := fs.GetFloat32(f.Name)
			vs = []float64{float64(v)}
		case "float64Slice":
			vs, _ = fs.GetFloat64Slice(f.Name)
		}
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				bad = usagef("--%s %s: not a finite number", f.Name, f.Value.String())
				return
			}
		}
	})
	return bad
}

func init() {
	register(&Command{Name: "version", Summary: "print the version", Run: runVersion})
}

func runVersion(env *Env, args []string) error {
	fs := newFlags(env, "version", "version   (also l2o --version)")
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
