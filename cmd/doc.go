// Package cmd implements the l2o command line: one function per subcommand,
// each parsing its own flags with pflag. cmd/l2o is a thin main around Main.
//
// Every command exits with status 0 on success, 1 when a run fails (a
// diverging run, an I/O error during training) and 2 for bad usage: unknown
// commands or flags, flags out of range, unreadable or mismatched input files.
package cmd
