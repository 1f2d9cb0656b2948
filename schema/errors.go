package schema

import "errors"

// ErrEmptyQuery is returned (wrapped) by decomposers and the pipeline when
// the question is empty or only white space. Test for it with errors.Is.
var ErrEmptyQuery = errors.New("the question is empty")
