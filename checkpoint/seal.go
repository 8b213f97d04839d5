package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// SealKey is the last member of a sealed JSON file (Seal): the SHA-256 (hex)
// of the file's bytes without it.
const SealKey = "sealed_sha256"

// ErrEdited marks a sealed file whose bytes do not match its seal: it was
// edited after it was written. Test with errors.Is; the error is an
// *EditedError.
var ErrEdited = errors.New("edited after it was written")

// EditedError names a sealed file that was edited.
type EditedError struct{ Path string }

func (e *EditedError) Error() string {
	return fmt.Sprintf("%s was edited after it was written (its bytes do not match the SHA-256 it was sealed with, %q): "+
		"an edited manifest describes something other than what was computed; restore the file as written, or run again", e.Path, SealKey)
}

func (e *EditedError) Unwrap() error { return ErrEdited }

// sealTail matches the seal Seal appends: the last member of the object.
var sealTail = regexp.MustCompile(`,\n  "` + SealKey + `": "([0-9a-f]{64})"\n}\n$`)

// MarshalSealed encodes v as indented JSON (two spaces, a final newline)
// and seals it (Seal).
func MarshalSealed(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return Seal(append(b, '\n'))
}

// Seal appends to the indented JSON object b (as json.MarshalIndent with a
// two-space indent writes it, and a newline) the member SealKey: the SHA-256
// of b. Any later edit of the file, one byte or more, fails Unseal.
func Seal(b []byte) ([]byte, error) {
	body, ok := bytes.CutSuffix(b, []byte("\n}\n"))
	if !ok || len(body) < 2 || bytes.Contains(b, []byte(`"`+SealKey+`"`)) {
		return nil, fmt.Errorf("checkpoint: cannot seal: not an unsealed indented JSON object with members")
	}
	out := append([]byte(nil), body...)
	return fmt.Appendf(out, ",\n  %q: %q\n}\n", SealKey, Sum(b)), nil
}

// Unseal checks the seal of the JSON file path whose content is b. It
// returns false for a file without a seal (written before files were
// sealed: the caller decides whether its format may lack one), and an
// *EditedError when the seal is malformed or does not match the bytes.
func Unseal(path string, b []byte) (sealed bool, err error) {
	m := sealTail.FindSubmatchIndex(b)
	if m == nil {
		if bytes.Contains(b, []byte(`"`+SealKey+`"`)) {
			return false, &EditedError{Path: path}
		}
		return false, nil
	}
	body := append(append([]byte(nil), b[:m[0]]...), "\n}\n"...)
	if bytes.Contains(body, []byte(`"`+SealKey+`"`)) || Sum(body) != string(b[m[2]:m[3]]) {
		return true, &EditedError{Path: path}
	}
	return true, nil
}
