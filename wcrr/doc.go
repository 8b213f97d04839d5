// Package wcrr implements the weakly convex ridge regularizer (WCRR) of
// Goujon, Neumayer and Unser, "Learning weakly convex regularizers for
// convergent image-reconstruction algorithms", SIAM J. Imaging Sci. 17(1),
// 2024:
//
//	S(x)       = Σ_c Σ_{i,j} ψ_c((W x)_c[i,j])
//	∇S(x)      = Wᵀ ψ'(W x)
//	∇²S(x) v   = Wᵀ(ψ''(W x) ⊙ W v)
//
// W = C/√L, where C is a stack of three multi-channel convolution layers
// (1 → 4 → 8 → 60 channels, 5×5, zero "same" padding after every layer, no
// bias; computed with package mconv: a Model prepares mconv Plans per image
// size, so the many-channel layers run by FFT with cached filter spectra),
// and the channel potentials are
//
//	ψ_c(z)   = (μ+1)·Huber(z; h_c) − Huber(z; T_c)
//	ψ_c'(z)  = (μ+1)·clip(z, ±h_c) − clip(z, ±T_c)
//	ψ_c''(z) = (μ+1)[|z| < h_c] − [|z| < T_c] ∈ {μ, −1, 0}
//
// with Huber(z; a) = z²/2 for |z| ≤ a and a|z| − a²/2 beyond. Since ψ_c”
// lies in [−1, μ], S is 1-weakly convex and ∇S is max(μ, 1)·‖W‖²-Lipschitz.
//
// Images are batches of n grey-scale h×w images, row-major [n][1][h][w];
// responses W x are [n][C][h][w].
//
// # File format
//
// Load reads the JSON export of the pretrained model (wcrr_sigma18.json,
// σ = 18 baked in). Only these fields are read; all others are ignored:
//
//	mu                          μ (number)
//	L                           normalisation constant, W = C/√L (number);
//	                            the converged power-method λmax(CᵀC) on
//	                            256×256 images, 396.54655354339707
//	conv.layers[3]              the layers, applied in order, each with
//	  in_channels, out_channels   channel counts (1 → 4 → 8 → 60)
//	  kernel_size                 odd K (5)
//	  padding                     must equal kernel_size/2
//	  weight                      [out][in][K][K] cross-correlation filters:
//	                              y[o][i][j] = Σ_c Σ_{u,v} weight[o][c][u][v]·x[c][i+u−p][j+v−p]
//	potential.closed_form.h_c   [C] inner thresholds h_c = 0.002/s_c
//	potential.closed_form.T_c   [C] outer thresholds T_c = 0.098/s_c
//
// The spline tables, collapsed filters and Lipschitz data in the same file
// are not needed: the closed form above reproduces the splines exactly.
//
// The pretrained checkpoint (github.com/axgoujon/weakly_convex_ridge_regularizer)
// carries no licence; cite the paper when using it.
package wcrr
