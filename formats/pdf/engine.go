package pdf

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

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
