package main

import (
	"fmt"
	"io"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

// printConflicts writes one line per conflict between sources in the
// verdict, naming both sources and their figures.
func printConflicts(w io.Writer, v *schema.Verdict) {
	if v == nil {
		return
	}
	for _, c := range v.Conflicts {
		fmt.Fprintf(w, "Conflict: %s\n", judge.ConflictText(c))
	}
}
