package fs

import "math"

func pow2(x float64) float64 { return math.Exp2(x) }
func log2(x float64) float64 { return math.Log2(x) }
