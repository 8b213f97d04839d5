// Package ordered lets several goroutines compute per-item contributions
// while the contributions are added to a sum in item order: the sum is
// bitwise that of a loop over the items, whatever the number of goroutines.
//
// A reduction over functions (the greedy step loss's Σk, an adjoint's
// Σk conj(v̂k)·r̂k) stays independent of GOMAXPROCS this way, and a shard of
// functions can continue a running sum that the shards before it passed on.
package ordered
