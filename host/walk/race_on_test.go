//go:build race

package walk

// raceEnabled: the race detector makes every step several times slower,
// so the tests that loop for a figure loop less.
const raceEnabled = true
