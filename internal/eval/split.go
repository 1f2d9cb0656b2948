package eval

import (
	"fmt"

	"github.com/docmind/docmind/internal/eval/splits"
)

// SelectSplit keeps the rows of the frozen split (package splits): all
// rows for splits.All; for Dev or Test, the rows listed in that split.
// Every row must then be in a split set (an error names the first that
// is not), and at least one row must be kept (else an *EmptySplitError).
func SelectSplit(rows []QARow, split splits.Split) ([]QARow, error) {
	if split == splits.All || split == "" {
		return rows, nil
	}
	var kept []QARow
	for _, r := range rows {
		_, s, ok, err := splits.Of(r.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("--split %s: question %s is in no frozen split (the splits cover the development sets: internal/eval/splits/README.md); use --split all", split, r.ID)
		}
		if s == split {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil, &EmptySplitError{Split: split, Rows: len(rows)}
	}
	return kept, nil
}

// EmptySplitError is SelectSplit's error when none of Rows rows is in
// the split.
type EmptySplitError struct {
	Split splits.Split
	Rows  int
}

func (e *EmptySplitError) Error() string {
	return fmt.Sprintf("--split %s: none of the %d questions is in the %s split", e.Split, e.Rows, e.Split)
}
