//go:build race

package server

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = true
