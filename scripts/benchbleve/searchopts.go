package main

import "github.com/docmind/docmind/index"

// searchOptions are the options of DocMind's SciFact searches: the
// default BM25 parameters, as `docmind eval retrieval --beir` uses them,
// unless -k1 or -b is given, and the context field's weight when
// -context-weight is given. (Kept in a file of its own: to measure an
// older revision whose index package lacks the context field, replace
// this function only.)
func searchOptions(opt sciFactOptions) index.SearchOptions {
	so := index.SearchOptions{K1: index.DefaultK1, B: index.DefaultB, SetBM25: true}
	if opt.k1 > 0 {
		so.K1 = opt.k1
	}
	if opt.b >= 0 {
		so.B = opt.b
	}
	if opt.contextWeight >= 0 {
		so.ContextWeight, so.SetContextWeight = opt.contextWeight, true
	}
	return so
}
