package formats

// Format names: the values of document.Document.Format, the keys under
// which loader.WithParser registers parsers, and what loader.Detect
// returns.
const (
	PDF      = "pdf"
	DOCX     = "docx"
	HTML     = "html"
	Markdown = "markdown"
	Text     = "text"
	// Binary marks content that is not a document DocMind can read
	// (images, archives, executables, ...). Detection returns it; no
	// parser is registered for it and no Document has it.
	Binary = "binary"
)
