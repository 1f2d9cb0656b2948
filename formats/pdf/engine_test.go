package pdf

import (
	"context"
	"runtime"
	"testing"

	"github.com/docmind/docmind/formats/internal/fixture"
	"github.com/klippa-app/go-pdfium/requests"
)

// A PDFium call must not allocate a call engine (a 10 KiB stack) each
// time: go-pdfium looks its function up on every call, and reuseCalls
// makes the lookup return one handle per name.
func TestCallsReuseFunctionHandles(t *testing.T) {
	data := fixture.Read(t, "contract.pdf")
	inst, err := reader(t).instance(context.Background(), "contract.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	od, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: od.Document})
	count := func() int {
		pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: od.Document})
		if err != nil {
			t.Fatal(err)
		}
		return pc.PageCount
	}
	want := count()
	const calls = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		if got := count(); got != want {
			t.Fatalf("page count %d, then %d", want, got)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / calls; per > 2048 {
		t.Errorf("a PDFium call allocates %d bytes; want under 2 KiB (function handles reused)", per)
	}
}
