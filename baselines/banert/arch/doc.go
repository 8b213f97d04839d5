// Package arch is the architecture of Banert et al.'s learned-optimizer
// network: its constants (hidden width, kernel size, the instance norm's ε,
// the leaky ReLU's slope, the safeguard's α), its parameter blocks in the
// order both the CPU network (package banert) and the device network
// (package ondevice) store them (Layout), and the channels of its three
// convolutions (Convs). It computes nothing and imports no array backend,
// so that every implementation of the network reads one description.
//
// The network is
//
//	instance norm (learned per-channel scale and offset) of the stacked input
//	→ conv 3×3 (in → 32, zero "same" padding, bias) → instance norm → leaky ReLU(0.2)
//	→ conv 3×3 (32 → 32, bias) → instance norm → leaky ReLU(0.2)
//	→ conv 3×3 (32 → 1, bias),
//
// with 3 input channels [x, ∇f, Δ] or 4 [x, ∇f_data, ∇f_reg, Δ].
package arch
