package pdf

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	pdfium "github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
)

// reuseCalls makes a PDFium instance reuse its WebAssembly function
// handles. go-pdfium looks every exported function up anew for each call
// (api.Module.ExportedFunction), and wazero gives each lookup a fresh
// call engine with a 10 KiB stack: about 8 calls a text line, 400,000 on
// the ten filings, 4 GB of garbage and a tenth of ingest's CPU. The
// instance's Module field (exported, in go-pdfium's implementation) is
// wrapped once by a module that hands out one handle per function name.
// An instance of another make, or a go-pdfium without that field, is
// left as it is: calls are then only slower.
func reuseCalls(inst pdfium.Pdfium) {
	impl := inst.GetImplementation()
	if impl == nil {
		return
	}
	v := reflect.ValueOf(impl)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	f := v.Elem().FieldByName("Module")
	if !f.IsValid() || !f.CanSet() || f.Type() != reflect.TypeFor[api.Module]() || f.IsNil() {
		return
	}
	mod := f.Interface().(api.Module)
	if _, done := mod.(*callCache); done {
		return
	}
	f.Set(reflect.ValueOf(api.Module(&callCache{Module: mod, fns: map[string]*cachedFunc{}})))
}

// callCache is an api.Module whose ExportedFunction returns the same
// handle for a name each time.
type callCache struct {
	api.Module
	mu  sync.Mutex
	fns map[string]*cachedFunc
}

func (m *callCache) ExportedFunction(name string) api.Function {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.fns[name]; f != nil {
		return f
	}
	fn := m.Module.ExportedFunction(name)
	if fn == nil {
		return nil
	}
	f := &cachedFunc{Function: fn, mod: m, name: name}
	m.fns[name] = f
	return f
}

// forget drops f's handle after a failed call, so that the next call
// starts from a fresh one.
func (m *callCache) forget(f *cachedFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fns[f.name] == f {
		delete(m.fns, f.name)
	}
}

// cachedFunc is a reused function handle. A handle's call engine serves
// one call at a time: a call made while the handle is in use (PDFium
// calling back into the same export) gets a fresh one.
type cachedFunc struct {
	api.Function
	mod  *callCache
	name string
	busy atomic.Bool
}

func (f *cachedFunc) Call(ctx context.Context, params ...uint64) ([]uint64, error) {
	if !f.busy.CompareAndSwap(false, true) {
		return f.mod.Module.ExportedFunction(f.name).Call(ctx, params...)
	}
	defer f.busy.Store(false)
	res, err := f.Function.Call(ctx, params...)
	if err != nil {
		f.mod.forget(f)
	}
	return res, err
}

// warmInvokeTypes makes the concurrent use of a pool's instances free of
// a data race in wazero: the emscripten host module ("env") that all
// instances of a pool share gives each invoke_* import a function type
// whose key string it computes on first use and stores unguarded
// (wasm.FunctionType.key), so two instances that first use one at the
// same time write it together. Calling each invoke_* host function once,
// alone, computes every key (the call then fails, harmlessly: the host
// module has no table to invoke from). The host module is reached
// through wazero's fields (unexported ones among them); when they are not
// where this expects, nothing is done.
func warmInvokeTypes(inst pdfium.Pdfium) {
	defer func() { _ = recover() }() // wazero's internals moved: leave it
	impl := inst.GetImplementation()
	if impl == nil {
		return
	}
	f := reflect.ValueOf(impl).Elem().FieldByName("Module")
	if !f.IsValid() || f.IsNil() {
		return
	}
	mod := f.Interface().(api.Module)
	if c, ok := mod.(*callCache); ok {
		mod = c.Module
	}
	mv := reflect.ValueOf(mod)
	if mv.Kind() != reflect.Pointer || mv.Elem().Kind() != reflect.Struct {
		return
	}
	store := exposed(mv.Elem().FieldByName("s"))
	if !store.IsValid() || store.Kind() != reflect.Pointer || store.IsNil() {
		return
	}
	modules := exposed(store.Elem().FieldByName("nameToModule"))
	if !modules.IsValid() || modules.Kind() != reflect.Map {
		return
	}
	ev := modules.MapIndex(reflect.ValueOf("env"))
	if !ev.IsValid() || ev.IsNil() {
		return
	}
	env, ok := ev.Interface().(api.Module)
	src := ev.Elem().FieldByName("Source")
	if !ok || !src.IsValid() || src.IsNil() {
		return
	}
	code := src.Elem().FieldByName("CodeSection")
	if !code.IsValid() || code.Kind() != reflect.Slice {
		return
	}
	ctx := context.Background()
	for i := range code.Len() {
		gf := code.Index(i).FieldByName("GoFunc")
		if !gf.IsValid() || gf.IsNil() || !strings.HasSuffix(gf.Elem().Type().String(), ".InvokeFunc") {
			continue
		}
		fn, ok := gf.Interface().(api.GoModuleFunction)
		if !ok {
			continue
		}
		func() {
			defer func() { _ = recover() }() // the invoke itself fails
			fn.Call(ctx, env, make([]uint64, 32))
		}()
	}
}

// exposed returns v (an unexported struct field, addressable) as a value
// that can be read.
func exposed(v reflect.Value) reflect.Value {
	if !v.IsValid() || !v.CanAddr() {
		return reflect.Value{}
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}
