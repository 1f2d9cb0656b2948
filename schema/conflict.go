package schema

// Conflict is a disagreement between two retrieved sources about a figure
// the answer states: the section the answer's figure comes from says
// "1.5% per month", another retrieved section says "50% per month" about
// the same thing.
type Conflict struct {
	// Claim is the claim of the answer that states Figure.
	Claim string `json:"claim"`
	// About are the terms the two statements share: what the figures are
	// about ("late fee").
	About string `json:"about,omitempty"`
	// Figure is the answer's figure as its source writes it; Source the
	// section stating it, with the sentence as Quote.
	Figure string   `json:"figure"`
	Source Evidence `json:"source"`
	// OtherFigure is the different figure another section states;
	// OtherSource that section, with the sentence as Quote.
	OtherFigure string   `json:"other_figure"`
	OtherSource Evidence `json:"other_source"`
	// Acknowledged is true when the answer itself states both figures, so
	// that it does not present one as the only answer.
	Acknowledged bool `json:"acknowledged,omitempty"`
}
