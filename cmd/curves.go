package cmd

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/greedyl2o/greedyl2o/eval"
)

func init() {
	register(&Command{Name: "curves", Summary: "print saved curves at chosen iterations: mean optimality with min and max, as a table (markdown with --md)", Run: runCurves})
}

func runCurves(env *Env, args []string) error {
	fs := newFlags(env, "curves", "curves --curves DIR/curves.json[,…] [--at 1,5,10,20,50,100] [--md] [--spread]")
	paths := fs.StringSlice("curves", nil, "curves written by 'l2o eval', 'l2o bench greedy' or 'l2o demo' (curves.json)")
	at := fs.IntSlice("at", []int{1, 5, 10, 20, 30, 50, 100}, "iterations to print")
	md := fs.Bool("md", false, "print a markdown table")
	spread := fs.Bool("spread", false, "print min and max over the functions beside the mean")
	methods := fs.StringSlice("methods", nil, "only these methods (default: all)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(*paths) == 0 {
		return usagef("--curves is required")
	}
	for _, t := range *at {
		if t < 0 {
			return usagef("--at %d: iterations are counted from 0", t)
		}
	}
	all, err := readCurvesFiles(*paths, *methods)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return usagef("--methods %s: none of these methods is in --curves", strings.Join(*methods, ","))
	}
	cell := func(c *eval.Curve, t int) string {
		i := -1
		for j, it := range c.Iter {
			if it == t {
				i = j
			}
		}
		if i < 0 {
			return "—"
		}
		v := fmtOpt(c.Mean[i])
		if *spread {
			v += fmt.Sprintf(" [%s, %s]", fmtOpt(c.Min[i]), fmtOpt(c.Max[i]))
		}
		return v
	}
	head := []string{"method"}
	for _, t := range *at {
		head = append(head, fmt.Sprintf("F@%d", t))
	}
	head = append(head, "setting")
	rows := [][]string{head}
	for _, c := range all {
		row := []string{c.Method}
		for _, t := range *at {
			row = append(row, cell(c, t))
		}
		row = append(row, settingSummary(c.Setting))
		rows = append(rows, row)
	}
	printRows(env.Stdout, rows, *md)
	return nil
}

// fmtOpt prints an optimality value with three significant digits; a
// diverged value (non-finite or above 1e6) is named.
func fmtOpt(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "diverged"
	case v > 1e6:
		return fmt.Sprintf("%.2g (diverging)", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// settingSummary is the problem and its conventions from a curve's setting.
func settingSummary(s map[string]string) string {
	if s == nil {
		return "—"
	}
	var parts []string
	if p := s["problem"]; p != "" {
		parts = append(parts, p)
	}
	for _, k := range []string{"blur_boundary"} {
		if v := s[k]; v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// printRows prints rows (the first is the header) as a markdown table or
// as aligned columns, the first left-aligned.
func printRows(w io.Writer, rows [][]string, md bool) {
	if md {
		for i, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
			if i == 0 {
				fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(r)))
			}
		}
		return
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, v := range r {
			widths[j] = max(widths[j], len([]rune(v)))
		}
	}
	for _, r := range rows {
		for j, v := range r {
			pad := widths[j] - len([]rune(v))
			if j == 0 {
				fmt.Fprint(w, v+strings.Repeat(" ", pad))
			} else {
				fmt.Fprint(w, "  "+strings.Repeat(" ", pad)+v)
			}
		}
		fmt.Fprintln(w)
	}
}

// readCurvesFiles reads the curves of paths, only those of methods when
// methods is not empty.
func readCurvesFiles(paths, methods []string) ([]*eval.Curve, error) {
	keep := map[string]bool{}
	for _, m := range methods {
		keep[m] = true
	}
	var all []*eval.Curve
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, usagef("--curves: %v", err)
		}
		cs, err := eval.ReadJSON(f)
		f.Close()
		if err != nil {
			return nil, usagef("--curves %s: %v", p, err)
		}
		for _, c := range cs {
			if len(keep) == 0 || keep[c.Method] {
				all = append(all, c)
			}
		}
	}
	return all, nil
}
