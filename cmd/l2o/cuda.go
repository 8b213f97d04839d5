//go:build l2ocuda

package main

// Built with -tags l2ocuda, l2o registers the CUDA device ("--device cuda").
// Such a binary exits at start on a machine without a GPU (gorgonia.org/cu's
// init), so the default build leaves it out.
import _ "github.com/greedyl2o/greedyl2o/gpu/cuda"
