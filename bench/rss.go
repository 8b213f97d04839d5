package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// RSS returns the process's current and peak resident set sizes in bytes
// (VmRSS and VmHWM of /proc/self/status; Linux only). The peak is a
// process-wide high-water mark (see ResetPeakRSS).
func RSS() (current, peak int64, err error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, fmt.Errorf("reading memory statistics: %w (RSS needs Linux /proc)", err)
	}
	defer f.Close()
	return parseStatus(f)
}

// parseStatus reads the VmRSS and VmHWM lines ("VmRSS:   1234 kB") of a
// /proc/<pid>/status file.
func parseStatus(r io.Reader) (current, peak int64, err error) {
	fields := map[string]*int64{"VmRSS:": &current, "VmHWM:": &peak}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		name, rest, ok := strings.Cut(line, ":")
		dst := fields[name+":"]
		if !ok || dst == nil {
			continue
		}
		v := strings.Fields(rest)
		if len(v) != 2 || v[1] != "kB" {
			return 0, 0, fmt.Errorf("parsing %q in /proc/self/status: want a size in kB", line)
		}
		kb, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil || kb < 0 {
			return 0, 0, fmt.Errorf("parsing %q in /proc/self/status: bad size", line)
		}
		*dst, seen[name] = kb<<10, true
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("reading /proc/self/status: %w", err)
	}
	if !seen["VmRSS"] || !seen["VmHWM"] {
		return 0, 0, fmt.Errorf("no VmRSS and VmHWM lines in /proc/self/status")
	}
	return current, peak, nil
}

// ResetPeakRSS asks the kernel to reset VmHWM to the current RSS (writing 5
// to /proc/self/clear_refs). It is best effort: Measure calls it so that
// in-process measurements start fresh where the kernel allows it.
func ResetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
