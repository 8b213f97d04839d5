// Package testsupport holds helpers shared by the tests and benchmarks of
// several packages: CPU time per operation for benchmarks on a shared
// machine, golden-hash comparison for outputs that must stay bitwise
// unchanged, and the relative differences of vectors that tests bound.
package testsupport
