// Package eval is the evaluation harness: it runs optimization methods
// (baselines.Method, learned or classical) on a test objective, records for
// every iteration the objective values, gradient norms and relative
// optimality (f_k(x^t) − f*_k)/(f_k(x⁰) − f*_k) of every function, their
// mean, minimum and maximum, the wall-clock time spent in the methods'
// iterations, and the PSNR of chosen iterates against the ground truth, and
// writes the resulting curves as CSV (long format) or JSON.
//
// Only the methods' Next calls are timed: the evaluations made to record
// values and gradients are not counted.
package eval
