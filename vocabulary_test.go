package docmind_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/decomposer"
)

// exportedNames returns the exported top-level names declared in the
// non-test files of the package in dir (methods excluded).
func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		{
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
	}
	return names
}

// The root package re-exports the whole domain vocabulary of package
// schema, so that a library user or a stage author needs one import.
func TestRootReexportsSchema(t *testing.T) {
	root, sch := exportedNames(t, "."), exportedNames(t, "schema")
	if len(sch) < 20 {
		t.Fatalf("read only %d names from package schema", len(sch))
	}
	for name := range sch {
		if !root[name] {
			t.Errorf("schema.%s has no alias in package docmind", name)
		}
	}
}

// One error value per condition: an empty question is ErrEmptyQuery
// whether Ask or a decomposer noticed it.
func TestErrEmptyQueryIsOneValue(t *testing.T) {
	_, err := decomposer.NewOffline().Decompose(context.Background(), " \t ")
	if !errors.Is(err, docmind.ErrEmptyQuery) {
		t.Errorf("the decomposer's error %v is not docmind.ErrEmptyQuery", err)
	}
	p, err := docmind.New(docmind.WithSections([]docmind.Section{{ID: "a", Title: "A", Content: "Text."}}))
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
