package decomposer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
)

func TestEntities(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`What does "Confidential Information" mean?`, []string{"Confidential Information"}},
		{"Does Acme Corp owe a fee of $10,000 or 1.5% under the Statement of Work?",
			[]string{"Acme Corp", "Statement of Work", "$10,000", "1.5%"}},
		{"What is the SLA for 5 users?", []string{"SLA", "5"}},
		{"Termination fees?", nil},
		{"What are the penalties?", nil},
	}
	for _, c := range cases {
		if got := Entities(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Entities(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestConstraints(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"What is the termination fee for enterprise clients?", []string{"for enterprise clients"}},
		{"What happens after termination?", []string{"after termination"}},
		{"Can the Provider suspend services if payment is late?", []string{"if payment is late"}},
		{"When is payment due?", nil},
		{"What is the fee for enterprise clients and when is it due?", []string{"for enterprise clients"}},
	}
	for _, c := range cases {
		if got := Constraints(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Constraints(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTemporals(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Is the fee due within 30 days?", []string{"30 days"}},
		{"What happens after thirty (30) days?", []string{"thirty (30) days"}},
		{"Does the term last two years from January 15, 2024?", []string{"two years", "January 15, 2024"}},
		{"What was charged per month in 2024?", []string{"per month", "2024"}},
		{"What is the fee?", nil},
	}
	for _, c := range cases {
		if got := Temporals(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Temporals(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDecompose(t *testing.T) {
	d, err := NewOffline().Decompose(context.Background(), "What is the notice period and how much is the termination fee for enterprise clients?")
	if err != nil {
		t.Fatal(err)
	}
	want := &schema.Decomposition{
		Intent:      question.IntentDuration,
		SubQueries:  []string{"What is the notice period?", "How much is the termination fee for enterprise clients?"},
		Constraints: []string{"for enterprise clients"},
		KeyTerms:    []string{"notice", "termination", "fee", "enterprise", "clients"},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("Decompose =\n%+v\nwant\n%+v", d, want)
	}
}

func TestDecomposeEmpty(t *testing.T) {
	for _, q := range []string{"", "   ", "\n\t"} {
		_, err := NewOffline().Decompose(context.Background(), q)
		if !errors.Is(err, schema.ErrEmptyQuery) {
			t.Errorf("Decompose(%q) error = %v, want ErrEmptyQuery", q, err)
		}
	}
}

func TestDecomposeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewOffline().Decompose(ctx, "What is the fee?"); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func FuzzDecompose(f *testing.F) {
	for _, s := range []string{"What is the notice period and how much is the fee?", `"x" and it?`, "and and ?", "'a' 'b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		d, err := NewOffline().Decompose(context.Background(), q)
		if err != nil {
			if !errors.Is(err, schema.ErrEmptyQuery) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(d.SubQueries) == 0 || d.Intent == "" {
			t.Fatalf("empty decomposition for %q: %+v", q, d)
		}
	})
}

func ExampleOffline_Decompose() {
	d, err := NewOffline().Decompose(context.Background(), "What is the notice period and how much is the termination fee?")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Intent)
	for _, s := range d.SubQueries {
		fmt.Println(s)
	}
	fmt.Println(d.KeyTerms)
	// Output:
	// duration
	// What is the notice period?
	// How much is the termination fee?
	// [notice termination fee]
}

func BenchmarkDecompose(b *testing.B) {
	r := NewOffline()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := r.Decompose(ctx, "What is the notice period and how much is the termination fee for enterprise clients?"); err != nil {
			b.Fatal(err)
		}
	}
}
