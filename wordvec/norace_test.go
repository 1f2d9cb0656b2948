//go:build !race

package wordvec

const raceEnabled = false
