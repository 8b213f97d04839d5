// Package config holds what the trainers' configurations (greedy.Config,
// unroll.Config, banert.Config) share: the error that names the field at
// fault, FieldError, which each trainer's package offers under its own
// name (greedy.FieldError, …) so that one errors.As finds it whichever
// trainer refused its configuration.
package config
