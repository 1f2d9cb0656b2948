package docmind_test

import (
	"cmp"
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
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
// type's method's parameters and results (owner: the receiver type, the
// function's name for a function), an exported type's definition or, for
// a struct, its exported fields (owner: the type), and an exported
// variable's declared type (owner: the variable). An alias is passed
// whole, with the alias's name as owner.
func exportedSignatures(files []*ast.File, visit func(owner string, ts *ast.TypeSpec, typ ast.Expr)) {
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				switch recv := receiverName(d.Recv); {
				case !d.Name.IsExported():
				case d.Recv == nil:
					visit(d.Name.Name, nil, d.Type)
				case recv != "":
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
							visit(sp.Names[0].Name, nil, sp.Type)
						}
					}
				}
			}
		}
	}
}

// module is the import path of this module: the root package's
// vocabulary covers the types of every package under it.
const module = "github.com/docmind/docmind"

// typeName names an exported type of a package of this module.
type typeName struct{ pkg, name string } // pkg: import path

func (n typeName) String() string { return path.Base(n.pkg) + "." + n.name }

// moduleImports maps the names under which file f imports packages of
// this module to their import paths.
func moduleImports(f *ast.File) map[string]string {
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if !strings.HasPrefix(p, module+"/") {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	return imports
}

// typeRefs returns the types of this module that typ names: those of other
// packages through the names in imports, those of package pkg (local) by
// their bare names. Field and parameter names are not types.
func typeRefs(typ ast.Expr, pkg string, local map[string]bool, imports map[string]string) []typeName {
	var refs []typeName
	var inspect func(ast.Node) bool
	inspect = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			ast.Inspect(n.Type, inspect)
			return false
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && imports[id.Name] != "" {
				refs = append(refs, typeName{imports[id.Name], n.Sel.Name})
			}
			return false
		case *ast.Ident:
			if local[n.Name] {
				refs = append(refs, typeName{pkg, n.Name})
			}
		}
		return true
	}
	ast.Inspect(typ, inspect)
	return refs
}

// moduleTypes reads the packages of this module on demand: for each
// exported type, the module's types its definition, exported fields and
// methods' signatures name, which a caller holding a value of it needs to
// name too.
type moduleTypes struct {
	t    *testing.T
	pkgs map[string]map[string][]typeName // import path -> type -> uses
}

// uses returns the types t uses, and whether t is a type at all (a
// selector in a signature may name a constant, as in an array length).
func (m *moduleTypes) uses(t typeName) ([]typeName, bool) {
	types, ok := m.pkgs[t.pkg]
	if !ok {
		types = m.read(t.pkg)
		m.pkgs[t.pkg] = types
	}
	uses, isType := types[t.name]
	return uses, isType
}

// read parses package pkg: its exported types, each with the types it uses.
func (m *moduleTypes) read(pkg string) map[string][]typeName {
	files := parseNonTestFiles(m.t, strings.TrimPrefix(pkg, module+"/"))
	local, types := map[string]bool{}, map[string][]typeName{}
	for _, f := range files {
		for name, obj := range f.Scope.Objects {
			if obj.Kind == ast.Typ && ast.IsExported(name) {
				local[name], types[name] = true, nil
			}
		}
	}
	for _, f := range files {
		imports := moduleImports(f)
		exportedSignatures([]*ast.File{f}, func(owner string, _ *ast.TypeSpec, typ ast.Expr) {
			if !local[owner] {
				return
			}
			for _, r := range typeRefs(typ, pkg, local, imports) {
				if r != (typeName{pkg, owner}) {
					types[owner] = append(types[owner], r)
				}
			}
		})
	}
	return types
}

// The root package's exported signatures speak only its own vocabulary,
// as TestRootReexportsSchema makes them for schema: every type of another
// package of this module that they use (Pipeline.Runner's chains.Runner,
// WithCorpus's judge.Corpus, NewLoader's loader.Loader), and every such
// type that those types' exported fields and methods use in turn
// (Runner.Run's chains.RunOption), has an alias in package docmind, so
// that go doc of the root package sends no user to another package.
func TestRootReexportsModuleTypesItUses(t *testing.T) {
	m := &moduleTypes{t: t, pkgs: map[string]map[string][]typeName{}}
	used := map[typeName]string{} // -> the root name using it
	aliased := map[typeName]bool{}
	for _, f := range parseNonTestFiles(t, ".") {
		imports := moduleImports(f)
		exportedSignatures([]*ast.File{f}, func(owner string, ts *ast.TypeSpec, typ ast.Expr) {
			for _, r := range typeRefs(typ, module, nil, imports) {
				if _, isType := m.uses(r); !isType {
					continue
				}
				if used[r] == "" {
					used[r] = owner
				}
				_, bare := typ.(*ast.SelectorExpr) // Name = pkg.Type
				if ts != nil && ts.Assign.IsValid() && bare {
					aliased[r] = true
				}
			}
		})
	}
	if len(used) < 3 {
		t.Fatalf("found only %d types of this module in the root package's exported names", len(used))
	}
	seen := map[typeName]bool{}
	var visit func(typ typeName, user string)
	visit = func(typ typeName, user string) {
		uses, isType := m.uses(typ)
		if seen[typ] || !isType {
			return
		}
		seen[typ] = true
		if !aliased[typ] {
			t.Errorf("%s is used by %s but has no alias in package docmind", typ, user)
		}
		for _, u := range uses {
			visit(u, typ.String())
		}
	}
	byName := func(a, b typeName) int { return cmp.Compare(a.String(), b.String()) }
	for _, typ := range slices.SortedFunc(maps.Keys(used), byName) {
		visit(typ, "docmind."+used[typ])
	}
}
