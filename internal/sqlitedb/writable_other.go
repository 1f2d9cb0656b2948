//go:build !unix

package sqlitedb

// writable reports true: on other systems a read-only database file
// fails when it is first written, with SQLite's own error.
func writable(string) bool { return true }
