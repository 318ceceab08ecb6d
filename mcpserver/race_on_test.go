//go:build race

package mcpserver_test

// raceEnabled: the race detector is on (tests scale down what it slows).
const raceEnabled = true
