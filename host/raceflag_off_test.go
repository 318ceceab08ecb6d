//go:build !race

package host_test

// raceBuild: see raceflag_on_test.go.
const raceBuild = false
