//go:build race

package host_test

// raceBuild: the race detector allocates on its own account, so bounds on
// the bytes a call allocates hold only without it.
const raceBuild = true
