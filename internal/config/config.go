package config

// FieldError names the configuration field at fault (Part.Field, as in
// Method.Param) and what is wrong with it; Pkg is the package that
// validated it (greedy, unroll, banert).
type FieldError struct {
	Pkg   string
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Pkg + ": " + e.Field + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }
