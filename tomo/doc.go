// Package tomo implements a matched pair of 2-D parallel-beam ray transforms
// (forward projection A and its exact transpose Aᵀ) for computed tomography.
// Projector.Forward and Adjoint work in float64; ForwardT and AdjointT are the
// same projector in float32 or float64 (the sampling in float64, the samples
// and sums of the data type, each ray's sum accumulated in float64).
//
// # Geometry
//
// The image is N×N, stored row-major: row i runs top to bottom, column j left
// to right, pixels have size 1 and the image is centred at the origin, so the
// centre of pixel (i, j) is at x = j − (N−1)/2, y = (N−1)/2 − i (y points up).
// There are Angles projection angles θ_a = a·π/Angles, a = 0..Angles−1, and Det
// detector bins of width 1 centred on the origin, bin k at
// s_k = k + 1/2 − Det/2. Ray (a, k) is the line x·cos θ_a + y·sin θ_a = s_k.
// A sinogram is stored as [Angles, Det], row-major.
//
// These conventions are those of the ASTRA toolbox's 2-D "parallel" projection
// geometry with its default volume geometry (ray direction (sin θ, −cos θ),
// detector direction (cos θ, sin θ), volume row 0 at the top), so a sinogram of
// this package is meant to equal ASTRA's "linear" CPU projection of the same
// image, up to ASTRA's float32 rounding (and except at θ = π/4 and 3π/4,
// which occur when Angles is a multiple of 4: there |sin θ| and |cos θ| tie and
// rounding decides whether a ray is sampled per row or per column, possibly
// differently in float32 and float64; both are valid Joseph samplings).
// That claim is checked in the tests
// against an independent transcription of ASTRA's per-ray algorithm written in
// ASTRA's vector-geometry variables; a comparison against ASTRA output itself
// runs only when testdata/astra_linear.json is present (generate it with
// testdata/gen_astra.py on a machine with ASTRA installed).
//
// # Model
//
// The projector is Joseph's ray-driven model with linear interpolation (ASTRA's
// "linear" parallel-beam projector). For a ray that is closer to vertical
// (|sin θ| < |cos θ|) the ray is sampled once per image row, at the row's centre
// line; the value there is the linear interpolation between the two pixels of
// that row nearest to the intersection, and each sample is weighted by the
// step length 1/|cos θ|. Other rays are sampled once per column with weight
// 1/|sin θ|. Pixels outside the image count as zero, so a sample that falls
// between the border pixel and the outside gets the border pixel's share only.
//
// The adjoint runs the same loops and scatters where the forward gathers, so
// Adjoint is the exact transpose of Forward: ⟨Ax, y⟩ = ⟨x, Aᵀy⟩ up to float64
// rounding (about 1e-15 relative).
//
// # Cost
//
// The projector is matrix-free. NewProjector precomputes, per angle, the
// stepping direction and weight, and per ray (angle, bin) the interpolation
// start coordinate and the range of rows (or columns) the ray meets inside the
// image: 16 bytes per ray, Angles·Det·16 bytes in all (1.0 MiB for 180 angles
// and 363 bins). Nothing else is kept between calls except pooled scratch.
// The tables are exported as RayTables (NewRayTables): package gpu/cuda
// uploads the same tables for its kernels.
//
// Images are processed four at a time (one at a time for a remainder): their
// zero-padded copies are interleaved pixel by pixel so that one ray's
// coordinates serve all four, and a transposed copy is kept so that
// column-marching rays also read memory contiguously. Scratch per Forward
// or Adjoint call is 2·k·(N+2)² float64 (k = 4: 4.2 MiB for N = 256). Scratch is recycled through a
// sync.Pool. Rays are traced in blocks of lines of about 256 KiB so that the
// part of the image in use stays in cache.
//
// Forward splits the angles of each group of images into contiguous blocks,
// one per worker, over runtime.GOMAXPROCS(0) goroutines (at most Angles);
// Adjoint splits the lines of the padded buffers instead, each worker
// tracing every angle but writing only its lines, so that every pixel sums
// its contributions in the order of one loop over angles and rays. Neither
// result depends on the worker count or on how the batch is split into
// groups.
// A Projector is immutable after construction and safe for concurrent use.
package tomo
