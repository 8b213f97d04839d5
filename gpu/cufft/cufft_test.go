//go:build l2ocuda

package cufft

import (
	"os"
	"testing"
)

// TestLoad finds and loads cuFFT with dlopen (no GPU needed: loading does not
// touch the device). The build needed cufft.h, so the library is normally
// there; the test skips, saying why, where it is not.
func TestLoad(t *testing.T) {
	path, err := Load()
	if err != nil {
		if _, statErr := os.Stat("/usr/include/cufft.h"); statErr != nil {
			t.Skipf("no cuFFT here: %v", err)
		}
		t.Fatal(err)
	}
	t.Logf("cuFFT loaded from %s (candidates: %v)", path, Candidates())
}
