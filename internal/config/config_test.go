package config

import (
	"errors"
	"fmt"
	"testing"
)

// TestFieldErrorNamesAndWraps: the message names the package and field,
// and errors.Is and errors.As see through it and a wrapping.
func TestFieldErrorNamesAndWraps(t *testing.T) {
	cause := errors.New("T must be at least 1, got 0")
	err := fmt.Errorf("training: %w", &FieldError{Pkg: "unroll", Field: "Method.T", Err: cause})
	if got, want := err.Error(), "training: unroll: Method.T: T must be at least 1, got 0"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Method.T" || !errors.Is(err, cause) {
		t.Errorf("errors.As/Is through %v: %+v", err, fe)
	}
}
