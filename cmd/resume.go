package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// flagGroup is one flag with its value as given on a command line ("--size",
// "32" or "--size=32"), or one other argument (name "").
type flagGroup struct {
	name   string
	tokens []string
	value  string
}

// groupFlags splits args into flags with their values by the definitions in
// fs (a flag that takes a value and has none after "=" consumes the next
// argument).
func groupFlags(fs *pflag.FlagSet, args []string) []flagGroup {
	var out []flagGroup
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || a == "--" {
			out = append(out, flagGroup{tokens: []string{a}})
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		g := flagGroup{name: name, tokens: []string{a}, value: value}
		if f := fs.Lookup(name); f != nil && !hasValue {
			if f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				g.tokens, g.value = append(g.tokens, args[i]), args[i]
			} else {
				g.value = f.NoOptDefVal
			}
		}
		out = append(out, g)
	}
	return out
}

// resumeFlagsFree are the flags a resume may set to other values than the
// run it continues (the run's own value holds when the resume gives none);
// resumeFlagsOwn are the resume's own, never taken from the run.
var (
	resumeFlagsFree = []string{"max-steps", "device", "epochs", "max-minutes", "tol-rel", "tol-abs", "diverge-factor", "stop-when-certified", "certify-L", "certificate", "repeat-check", "force"}
	resumeFlagsOwn  = []string{"resume", "out"}
)

// resumeArgs returns the arguments a command runs with: args, and with
// --resume also every flag of the run that made the checkpoint in --out
// that args do not give, so that `l2o train greedy --out DIR --resume`
// alone continues it. A flag of args that contradicts the checkpoint's run
// is refused (exit 2), naming both values. Checkpoints that do not record
// their command line (older l2o) get args unchanged.
func resumeArgs(fs *pflag.FlagSet, command string, args []string) ([]string, error) {
	user := groupFlags(fs, args)
	resume, out := false, ""
	for _, g := range user {
		switch g.name {
		case "resume":
			resume = g.value != "false"
		case "out":
			out = g.value
		}
	}
	if !resume || out == "" {
		return args, nil
	}
	orig, ok := recordedArgs(out, command)
	if !ok {
		return args, nil
	}
	given := map[string]string{}
	for _, g := range user {
		if g.name != "" {
			given[g.name] = g.value
		}
	}
	// A flag the run gave twice (a preset's value, then an override) took
	// its last value: compare with that one.
	origGroups := groupFlags(fs, orig)
	took := map[string]string{}
	for _, g := range origGroups {
		took[g.name] = g.value
	}
	var merged []string
	for _, g := range origGroups {
		if g.name == "" || slices.Contains(resumeFlagsOwn, g.name) {
			continue
		}
		if v, ok := given[g.name]; ok {
			if w := took[g.name]; !slices.Contains(resumeFlagsFree, g.name) && !sameFlagValue(v, w) {
				return nil, usagef("--%s %s: the checkpoint in %s was trained with --%s %s; a resume continues that run: drop --%s", g.name, v, out, g.name, w, g.name)
			}
			continue
		}
		merged = append(merged, g.tokens...)
	}
	// A flag the run did not give took its default: a resume may not set
	// it to something else either.
	for _, g := range user {
		if _, ok := took[g.name]; ok || g.name == "" || slices.Contains(resumeFlagsOwn, g.name) || slices.Contains(resumeFlagsFree, g.name) {
			continue
		}
		if f := fs.Lookup(g.name); f != nil && !sameFlagValue(g.value, f.DefValue) {
			return nil, usagef("--%s %s: the checkpoint in %s was trained with --%s's default (%s); a resume continues that run: drop --%s", g.name, g.value, out, g.name, f.DefValue, g.name)
		}
	}
	return append(merged, args...), nil
}

// sameFlagValue reports whether two values of a flag say the same: equal
// strings, or comma-separated lists whose items are equal strings or equal
// numbers ("1e-3" and "0.001").
func sameFlagValue(a, b string) bool {
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if as[i] == bs[i] {
			continue
		}
		x, errx := strconv.ParseFloat(strings.TrimSpace(as[i]), 64)
		y, erry := strconv.ParseFloat(strings.TrimSpace(bs[i]), 64)
		if errx != nil || erry != nil || x != y {
			return false
		}
	}
	return true
}

// recordedArgs reads the flags of the run that made the checkpoint in dir
// (its provenance, in manifest.json or unroll.json) when that run was
// command.
func recordedArgs(dir, command string) ([]string, bool) {
	for _, name := range []string{"manifest.json", "unroll.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var m struct {
			Provenance *struct {
				Args []string `json:"args"`
			} `json:"provenance"`
		}
		if json.Unmarshal(b, &m) != nil || m.Provenance == nil || len(m.Provenance.Args) == 0 {
			continue
		}
		words := strings.Fields(command)
		a := m.Provenance.Args
		if len(a) < len(words) || !slices.Equal(a[:len(words)], words) {
			return nil, false
		}
		return a[len(words):], true
	}
	return nil, false
}
