//go:build !race

package index

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = false
