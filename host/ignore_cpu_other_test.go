//go:build !unix

package host_test

// cpuNanos is 0 where getrusage is not to be had: the ignore benchmarks
// then report no cpu-ns/path.
func cpuNanos() int64 { return 0 }
