// Package samplecontract holds a small hand-written services-contract
// excerpt as sections, for the tests of the generator and the judge. It is
// test data, not product code.
package samplecontract

import (
	"testing"

	"github.com/docmind/docmind/schema"
)

// Source is the file name the sections claim to come from.
const Source = "services-agreement.md"

// Sections returns the excerpt, one section per clause, in document order.
// "Late Payment Penalties" is on page 8 with the 1.5% late fee; "Service
// Credits" (page 12) has 5% credits; "Suspension of Services" (page 9)
// allows suspension after sixty (60) days; no section mentions a warranty.
func Sections() []schema.Section {
	return []schema.Section{
		{
			ID: "fees", Title: "Fees and Invoicing", Source: Source, Page: 7,
			Content: "Provider shall invoice Client monthly in arrears for the Services. " +
				"Each invoice is payable in US dollars. " +
				"The fees for the initial term are set out in Schedule A and total $120,000 per year.",
		},
		{
			ID: "late", Title: "Late Payment Penalties", Source: Source, Page: 8,
			Content: "8.1 If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount. " +
				"Late fees accrue from the due date until the overdue amount is paid in full. " +
				"Provider may also recover its reasonable costs of collection.",
		},
		{
			ID: "suspension", Title: "Suspension of Services", Source: Source, Page: 9,
			Content: "Provider may suspend the Services if any undisputed amount is more than sixty (60) days overdue. " +
				"Provider shall give Client at least ten (10) business days' written notice before suspending the Services. " +
				"Services shall be restored within two (2) business days after the overdue amount is paid.",
		},
		{
			ID: "termination", Title: "Termination", Source: Source, Page: 10, PageEnd: 11,
			Content: "Either party may terminate this Agreement for convenience on ninety (90) days' written notice. " +
				"If Client terminates for convenience during the initial term, Client shall pay an early termination fee of $25,000. " +
				"Sections 8, 12 and 14 survive termination.",
		},
		{
			ID: "credits", Title: "Service Credits", Source: Source, Page: 12,
			Content: "If monthly availability falls below 99.9%, Provider shall credit Client 5% of the monthly fee for each full hour of downtime. " +
				"Service credits are capped at 25% of the monthly fee. " +
				"Service credits are Client's sole remedy for unavailability.",
		},
		{
			ID: "liability", Title: "Limitation of Liability", Source: Source, Page: 14,
			Content: "Each party's total liability under this Agreement is capped at the fees paid in the twelve (12) months before the claim. " +
				"Neither party is liable for indirect or consequential damages.",
		},
	}
}

// Find returns the section with the given ID, failing the test when it is
// absent.
func Find(tb testing.TB, id string) schema.Section {
	tb.Helper()
	for _, s := range Sections() {
		if s.ID == id {
			return s
		}
	}
	tb.Fatalf("samplecontract: no section %q", id)
	return schema.Section{}
}
