//go:build race

package gitconfig

// slowdown is how much longer the tests' time bounds are under the race
// detector, which makes the loader's loop some ten times slower.
const slowdown = 10
