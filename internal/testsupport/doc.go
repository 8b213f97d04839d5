// Package testsupport holds helpers shared by the tests and benchmarks of
// several packages: CPU time per operation for benchmarks on a shared
// machine, and golden-hash comparison for outputs that must stay bitwise
// unchanged.
package testsupport
