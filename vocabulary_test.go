package docmind_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/schema"
)

// exportedNames returns the exported top-level names declared in the
// non-test files of the package in dir (methods excluded).
func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, f := range parseNonTestFiles(t, dir) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() {
							names[sp.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.IsExported() {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}

// parseNonTestFiles parses the non-test Go files of the package in dir.
func parseNonTestFiles(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// One error value per condition: an empty question is ErrEmptyQuery
// whether Ask or a decomposer noticed it.
func TestErrEmptyQueryIsOneValue(t *testing.T) {
	_, err := decomposer.NewOffline().Decompose(context.Background(), " \t ")
	if !errors.Is(err, docmind.ErrEmptyQuery) {
		t.Errorf("the decomposer's error %v is not docmind.ErrEmptyQuery", err)
	}
	p, err := docmind.New(docmind.WithSections([]schema.Section{{ID: "a", Title: "A", Content: "Text."}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Ask(context.Background(), "  "); !errors.Is(err, docmind.ErrEmptyQuery) {
		t.Errorf("Ask's error %v is not docmind.ErrEmptyQuery", err)
	}
	if p.Mode() != docmind.ModeOffline {
		t.Errorf("Mode() = %q, want %q", p.Mode(), docmind.ModeOffline)
	}
}

// The root package declares its own types (Pipeline, Answer, Event, ...)
// and no aliases of other packages' types: go doc of it shows what a
// user calls, and the stages' interfaces stay in package schema.
func TestRootDeclaresNoAliases(t *testing.T) {
	for _, f := range parseNonTestFiles(t, ".") {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				if ts := sp.(*ast.TypeSpec); ts.Assign.IsValid() {
					t.Errorf("type %s is an alias; declare the root's own types only", ts.Name.Name)
				}
			}
		}
	}
}

// Every exported name of the root package, and every exported method of
// its types, has a doc comment (a grouped constant or variable may share
// its group's).
func TestRootExportedNamesHaveDocComments(t *testing.T) {
	names := exportedNames(t, ".")
	if len(names) < 20 {
		t.Fatalf("read only %d exported names", len(names))
	}
	for _, f := range parseNonTestFiles(t, ".") {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && d.Doc == nil && (d.Recv == nil || exportedReceiver(d.Recv)) {
					t.Errorf("func %s has no doc comment", d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() && sp.Doc == nil && d.Doc == nil {
							t.Errorf("type %s has no doc comment", sp.Name.Name)
						}
					case *ast.ValueSpec:
						if sp.Names[0].IsExported() && sp.Doc == nil && d.Doc == nil {
							t.Errorf("%s has no doc comment", sp.Names[0].Name)
						}
					}
				}
			}
		}
	}
}

// The root package does not link the PDF reader (PDFium compiled to
// WebAssembly, run by wazero) unless the program imports formats/pdf, as
// the docmind command does.
func TestPDFIsLinkedOnlyWhenImported(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return string(out)
	}
	const pdfium = "github.com/klippa-app/go-pdfium"
	if root := deps("."); strings.Contains(root, pdfium) || strings.Contains(root, "formats/pdf") {
		t.Errorf("package docmind links the PDF reader:\n%s", root)
	}
	if cli := deps("./cmd/docmind"); !strings.Contains(cli, pdfium) {
		t.Error("the docmind command does not link the PDF reader")
	}
}

// exportedReceiver reports whether a method's receiver is an exported type.
func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}
