//go:build race

package wordvec

// raceEnabled lets exhaustive single-goroutine checks run over a sample of
// the vocabulary under the race detector, which slows them tenfold.
const raceEnabled = true
