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
	// XLSX is an Excel workbook (Office Open XML spreadsheet).
	XLSX = "xlsx"
	// CSV is comma-, semicolon- or tab-separated values (.csv, .tsv).
	CSV = "csv"
	// PPTX is a PowerPoint deck (Office Open XML presentation).
	PPTX = "pptx"
	// EML is a saved e-mail message (RFC 5322, MIME).
	EML = "eml"
	// Image is a PNG, JPEG or TIFF image, read by OCR.
	Image = "image"
	// ODT is an OpenDocument text document (LibreOffice Writer, .odt).
	ODT = "odt"
	// RTF is a Rich Text Format document (.rtf).
	RTF = "rtf"
	// DOC is a legacy Word 97-2003 binary document (.doc, an OLE file).
	DOC = "doc"
	// Binary marks content that is not a document DocMind can read
	// (images, archives, executables, ...). Detection returns it; no
	// parser is registered for it and no Document has it.
	Binary = "binary"
)
