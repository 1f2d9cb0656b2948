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
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
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

// receiverName returns the name of a method's receiver type when it is an
// exported type of the package, else "".
func receiverName(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
		return id.Name
	}
	return ""
}

// exportedSignatures calls visit with the owner and the type expression of
// each exported signature of a package: a function's or an exported
// type's method's parameters and results (owner: the receiver type, "" for
// a function), an exported type's definition or, for a struct, its
// exported fields (owner: the type), and an exported variable's declared
// type. An alias is passed whole, with the alias's name as owner.
func exportedSignatures(files []*ast.File, visit func(owner string, ts *ast.TypeSpec, typ ast.Expr)) {
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				recv := receiverName(d.Recv)
				if d.Name.IsExported() && (d.Recv == nil || recv != "") {
					visit(recv, nil, d.Type)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if !sp.Name.IsExported() {
							continue
						}
						st, ok := sp.Type.(*ast.StructType)
						if !ok {
							visit(sp.Name.Name, sp, sp.Type)
							continue
						}
						for _, fld := range st.Fields.List {
							if len(fld.Names) == 0 || fld.Names[0].IsExported() {
								visit(sp.Name.Name, sp, fld.Type)
							}
						}
					case *ast.ValueSpec:
						if sp.Type != nil && sp.Names[0].IsExported() {
							visit("", nil, sp.Type)
						}
					}
				}
			}
		}
	}
}

// chainsTypes returns package chains's exported types, each with the
// package's other exported types its exported fields and methods'
// signatures use: what a caller holding a value of it needs to name.
func chainsTypes(t *testing.T) map[string][]string {
	t.Helper()
	files := parseNonTestFiles(t, "chains")
	types := map[string][]string{}
	for _, f := range files {
		for name, obj := range f.Scope.Objects {
			if obj.Kind == ast.Typ && ast.IsExported(name) {
				types[name] = nil
			}
		}
	}
	exportedSignatures(files, func(owner string, _ *ast.TypeSpec, typ ast.Expr) {
		if _, ok := types[owner]; !ok {
			return
		}
		ast.Inspect(typ, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				return false // another package's name
			case *ast.Ident:
				if _, ok := types[n.Name]; ok && n.Name != owner {
					types[owner] = append(types[owner], n.Name)
				}
			}
			return true
		})
	})
	return types
}

// The root package's exported signatures speak only its own vocabulary,
// as TestRootReexportsSchema makes them for schema: every type of package
// chains they use (Pipeline.Runner's *Runner, WithAfterStep's Step), and
// every chains type those types' exported fields and methods use in turn
// (Runner.Run's RunOption), has an alias in package docmind, so that go
// doc of the root package does not send a checkpoint author to chains.
func TestRootReexportsChainsTypesItUses(t *testing.T) {
	types := chainsTypes(t)
	if len(types) < 3 {
		t.Fatalf("read only %d types from package chains", len(types))
	}
	const chainsPath = `"github.com/docmind/docmind/chains"`
	used, aliased := map[string]bool{}, map[string]bool{}
	for _, f := range parseNonTestFiles(t, ".") {
		pkg := ""
		for _, im := range f.Imports {
			if im.Path.Value == chainsPath {
				pkg = "chains"
				if im.Name != nil {
					pkg = im.Name.Name
				}
			}
		}
		if pkg == "" {
			continue
		}
		exportedSignatures([]*ast.File{f}, func(_ string, ts *ast.TypeSpec, typ ast.Expr) {
			ast.Inspect(typ, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg {
					if _, isType := types[sel.Sel.Name]; isType {
						used[sel.Sel.Name] = true
						if ts != nil && ts.Assign.IsValid() && n == ts.Type {
							aliased[sel.Sel.Name] = true
						}
					}
				}
				return false
			})
		})
	}
	if len(used) == 0 {
		t.Fatal("found no chains type in the root package's exported names")
	}
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if !aliased[name] {
			t.Errorf("chains.%s is used by the root package's exported names but has no alias in package docmind", name)
		}
		for _, dep := range types[name] {
			visit(dep)
		}
	}
	for name := range used {
		visit(name)
	}
}
