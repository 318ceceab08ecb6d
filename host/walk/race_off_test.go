//go:build !race

package walk

// raceEnabled: see race_on_test.go.
const raceEnabled = false
