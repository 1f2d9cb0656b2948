//go:build !race

package index

// denseRaceEnabled is true when the tests run under the race detector.
const denseRaceEnabled = false
