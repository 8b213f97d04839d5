// Package optim holds the first-order optimizer the unrolled trainers share:
// Adam over a flat parameter vector (unrolled training, package unroll, and
// Banert et al.'s network, package banert).
package optim
