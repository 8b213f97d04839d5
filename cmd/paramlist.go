package cmd

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/models"
)

func init() {
	register(&Command{Name: "param list", Summary: "list the registered parametrizations of G and H (built-in and registered by a program)", Run: runParamList})
}

func runParamList(env *Env, args []string) error {
	fs := newFlags(env, "param list", "param list")
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, r := range models.Registered() {
		name := r.Name
		if r.Args {
			name += "…"
		}
		fmt.Fprintf(env.Stdout, "%-12s v%d  %s\n", name, r.Version, r.Summary)
	}
	fmt.Fprintln(env.Stdout, "methods: NAME (H = 0), m-NAME (H of the same family), G:H (two families)")
	return nil
}
