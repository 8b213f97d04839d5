package greedy

import "github.com/greedyl2o/greedyl2o/steploss"

// The step-loss engine lives in package steploss; these names stay here
// while code outside greedy (cmd) still reaches it through greedy. New code
// should use package steploss; greedy itself does.

// StepLoss is steploss.StepLoss.
type StepLoss = steploss.StepLoss

// Precision is steploss.Precision.
type Precision = steploss.Precision

// The precisions.
const (
	// Float64 is steploss.Float64.
	Float64 = steploss.Float64
	// Float32 is steploss.Float32.
	Float32 = steploss.Float32
)

// ParsePrecision is steploss.ParsePrecision.
var ParsePrecision = steploss.ParsePrecision

// CheckPrecision is steploss.CheckPrecision.
var CheckPrecision = steploss.CheckPrecision

// CheckDevice is steploss.CheckDevice.
var CheckDevice = steploss.CheckDevice

// NewStepLoss is steploss.NewStepLoss.
var NewStepLoss = steploss.NewStepLoss

// NewStepLossOn is steploss.NewStepLossOn.
var NewStepLossOn = steploss.NewStepLossOn
