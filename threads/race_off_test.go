//go:build !race

package threads

// raceEnabled is true under the race detector, which makes the pure-Go
// SQLite about fifteen times slower; long tests do less work then.
const raceEnabled = false
