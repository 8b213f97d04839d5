package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes (VmHWM of
// /proc/self/status, Linux only).
func PeakRSS() (int64, error) { return statusField("VmHWM:") }

// RSS returns the process's current resident set size in bytes (VmRSS).
func RSS() (int64, error) { return statusField("VmRSS:") }

// ResetPeakRSS asks the kernel to reset VmHWM to the current RSS (writing 5
// to /proc/self/clear_refs). It is best effort: Measure calls it so that
// in-process measurements start fresh where the kernel allows it.
func ResetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

func statusField(prefix string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading memory statistics: %w (peak RSS needs Linux /proc)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				break
			}
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parsing %q in /proc/self/status: %w", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s line in /proc/self/status", prefix)
}
