//go:build race

package main

// raceEnabled: the test binary runs under the race detector, beside other
// packages' tests that saturate the machine.
const raceEnabled = true
