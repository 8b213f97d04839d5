package cmd

import (
	"errors"
	"strings"

	"github.com/greedyl2o/greedyl2o/data"
)

func init() {
	register(&Command{Name: "data fetch", Summary: "download the real data sets (stl10, covid-ct, wcrr) from pinned upstream files, verify and convert them", Run: runDataFetch})
}

func runDataFetch(env *Env, args []string) error {
	fs := newFlags(env, "data fetch", "data fetch stl10|covid-ct|wcrr... [--from MIRROR] [--to DIR]")
	from := fs.String("from", "", "a mirror laid out as OWNER/REPO/PATH: a folder or an http(s) base URL (default: the upstream repositories at their pinned commits, "+data.Upstream+")")
	to := fs.String("to", "", "the data folder to fill (default $L2O_DATA, else ./"+data.DefaultDataDir+")")
	var names []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		names, args = append(names, args[0]), args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	err := data.Fetch(names, data.FetchOptions{From: *from, To: *to, Log: env.Stdout})
	if err != nil && (errors.Is(err, data.ErrChecksum) || errors.Is(err, data.ErrExists) || errors.Is(err, data.ErrUnknown)) {
		return asUsage(err)
	}
	return err
}
