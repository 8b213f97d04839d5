package cmd

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefusalsSayWhatToDo: refusals that named the wrong thing or nothing
// to do say what is wrong and what to write instead (exit 2).
func TestRefusalsSayWhatToDo(t *testing.T) {
	dir := trainSmall(t, filepath.Join(t.TempDir(), "run"))
	tiny := t.TempDir()
	for i := range 6 {
		var b bytes.Buffer
		img := image.NewGray(image.Rect(0, 0, 1, 1))
		img.Pix[0] = uint8(40 * i)
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(tiny, fmt.Sprintf("i%d.png", i)), b.Bytes(), 0o644)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "greedy", "--size", "8", "--param", "m-m-pc", "--out", filepath.Join(t.TempDir(), "a")}, "the momentum prefix m- is written once"},
		{[]string{"train", "greedy", "--size", "8", "--param", "pc-1", "--out", filepath.Join(t.TempDir(), "b")}, "pc-1: write pcK with an odd kernel size"},
		{[]string{"train", "greedy", "--problem", "ct-small", "--angles", "0", "--out", filepath.Join(t.TempDir(), "c")}, "at least 1 projection angle"},
		{[]string{"train", "greedy", "--data", tiny, "--n-train", "3", "--out", filepath.Join(t.TempDir(), "e")}, "need square images of at least 8×8"},
		{[]string{"apply", "--params", dir, "--n-test", "1", "--save-at", "", "--out", filepath.Join(t.TempDir(), "d")}, "names no iteration"},
	} {
		var o, e bytes.Buffer
		if code := Main(c.args, &o, &e); code != 2 || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args, code, c.want, e.String())
		}
	}
}

// TestSignalNotes: the first SIGTERM says to send it again (kill PID), not
// to press Ctrl-C; the first SIGINT says Ctrl-C again.
func TestSignalNotes(t *testing.T) {
	term, intr := interruptNote(syscall.SIGTERM), interruptNote(os.Interrupt)
	if strings.Contains(term, "Ctrl-C") || !strings.Contains(term, fmt.Sprintf("kill %d", os.Getpid())) {
		t.Errorf("SIGTERM note: %q", term)
	}
	if !strings.Contains(intr, "Ctrl-C again") {
		t.Errorf("SIGINT note: %q", intr)
	}
}
