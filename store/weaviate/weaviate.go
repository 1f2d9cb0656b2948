// Package weaviate is DocMind's Weaviate store (store.Store) over the
// official Go client. A store is three collections: COLLECTION holds the
// sections, COLLECTION+"Doc" the documents and COLLECTION+"Meta" the
// embedding-model record; they are created on first use.
//
// Sections are ranked by Weaviate's own BM25F over the same stems the
// SQLite index ranks (package index's analysis: stop words dropped,
// Porter stems) in two properties, the section's title and text and its
// document's context, so that answers and citations are those of the SQLite
// index; RelevanceScore is computed as the index computes it, from the
// hit's term frequencies and the collection's statistics. With an
// embedder, sections carry their vectors and a nearVector search is fused
// with BM25 by reciprocal rank fusion, as in the index.
//
// Weaviate has no transactions: a document is replaced by writing its new
// sections under a new version, then pointing the document's record at
// that version, then deleting the old version's sections. Searches keep
// only the sections of the version their document's record points to, so
// that readers see the old sections or the new ones, never a mix.
package weaviate

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/tmc/langchaingo/embeddings"
	client "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/store"
	"github.com/docmind/docmind/textproc"
)

// Scheme is the URL scheme of a Weaviate store: weaviate://HOST:PORT/COLLECTION.
const Scheme = "weaviate"

// Config is a parsed store URL.
type Config struct {
	// Host is HOST:PORT of Weaviate's REST API.
	Host string
	// Collection is the sections' collection name (capitalised).
	Collection string
	// Replication is the replication factor of new collections (default 1).
	Replication int
	// Shards is the number of shards of new collections (default 1).
	Shards int
	// Consistency is the consistency level of writes and reads (ONE,
	// QUORUM or ALL; default QUORUM).
	Consistency string
	// Timeout bounds every request (default 30s).
	Timeout time.Duration
	// BatchSize is how many sections one batch request carries (default
	// 200).
	BatchSize int
}

var collectionRe = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]*$`)

// ParseURL parses weaviate://HOST:PORT/COLLECTION[?replication=N&shards=N&consistency=ONE|QUORUM|ALL&timeout=30s&batch=200].
func ParseURL(raw string) (Config, error) {
	c := Config{Replication: 1, Shards: 1, Consistency: "QUORUM", Timeout: 30 * time.Second, BatchSize: 200}
	u, err := url.Parse(raw)
	if err != nil {
		return c, fmt.Errorf("store URL %q: %w", raw, err)
	}
	if u.Scheme != Scheme {
		return c, fmt.Errorf("store URL %q: the scheme must be %s:// (weaviate://HOST:PORT/COLLECTION)", raw, Scheme)
	}
	if u.Host == "" {
		return c, fmt.Errorf("store URL %q: no host (weaviate://HOST:PORT/COLLECTION)", raw)
	}
	c.Host = u.Host
	if u.Port() == "" {
		c.Host = net.JoinHostPort(u.Hostname(), "8080")
	}
	name := strings.Trim(u.Path, "/")
	if name == "" {
		name = "Docs"
	}
	if name[0] >= 'a' && name[0] <= 'z' {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	if !collectionRe.MatchString(name) {
		return c, fmt.Errorf("store URL %q: collection %q must be a letter followed by letters, digits or _", raw, name)
	}
	c.Collection = name
	q := u.Query()
	for key, vals := range q {
		v := vals[len(vals)-1]
		switch key {
		case "replication", "shards", "batch":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, fmt.Errorf("store URL %q: %s=%q must be a positive whole number", raw, key, v)
			}
			switch key {
			case "replication":
				c.Replication = n
			case "shards":
				c.Shards = n
			default:
				c.BatchSize = n
			}
		case "consistency":
			v = strings.ToUpper(v)
			if v != "ONE" && v != "QUORUM" && v != "ALL" {
				return c, fmt.Errorf("store URL %q: consistency=%q must be ONE, QUORUM or ALL", raw, v)
			}
			c.Consistency = v
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("store URL %q: timeout=%q must be a positive duration such as 30s", raw, v)
			}
			c.Timeout = d
		default:
			return c, fmt.Errorf("store URL %q: unknown parameter %q (use replication, shards, consistency, timeout or batch)", raw, key)
		}
	}
	return c, nil
}

// Option configures Open.
type Option func(*Store)

// WithEmbedder makes the store embed every section it writes and fuse
// dense (nearVector) search with BM25; model names the embedding model,
// recorded on first write (a store never mixes models).
func WithEmbedder(e embeddings.Embedder, model string) Option {
	return func(s *Store) { s.embedder, s.model = e, model }
}

// WithProgress calls fn after every batch written with the number of
// sections written so far for the document being written.
func WithProgress(fn func(path string, sections int)) Option {
	return func(s *Store) { s.progress = fn }
}

// Store is a Weaviate store. It is safe for concurrent use.
type Store struct {
	cfg      Config
	cl       *client.Client
	name     string
	embedder embeddings.Embedder
	model    string
	progress func(path string, sections int)

	// blockMax is true when the sections' collection ranks with
	// Weaviate's BlockMax WAND (see Warning).
	blockMax bool

	// writeMu serialises writers of this process (Weaviate serialises
	// nothing; two writers of one document from different processes are
	// the user's to avoid, as with two ingests of one folder).
	writeMu sync.Mutex

	stats statsCache
}

var _ store.Store = (*Store)(nil)

// statsCache holds corpus statistics (document frequencies, totals) read
// from the collection, valid while its generation — a token every writer
// replaces after each change (bumpGeneration) — stays the same. A
// collection whose writers predate the token has none, and nothing is
// cached for it.
type statsCache struct {
	mu    sync.Mutex
	gen   string
	count map[string]int64 // by the Aggregate query part that counted it
}

// maxCachedStats bounds the statistics cached for one generation (a
// long-running server asked many different questions between writes).
const maxCachedStats = 100_000

// room empties the cache when n more entries would exceed its bound; the
// caller holds mu.
func (c *statsCache) room(n int) {
	if len(c.count)+n > maxCachedStats {
		clear(c.count)
	}
}

// generationID is the Meta object holding the collection's generation.
var generationID = objectID("meta", "generation")

// generation reads the collection's generation token ("" when none).
func (s *Store) generation(ctx context.Context) (string, error) {
	q := fmt.Sprintf(`{Get{%s(limit:1, %s){value}}}`, s.metaClass(), filters.Where().WithPath([]string{"id"}).WithOperator(filters.Equal).WithValueText(generationID).String())
	var recs []metaRec
	if err := s.get(ctx, q, s.metaClass(), &recs); err != nil {
		return "", err
	}
	if len(recs) == 0 {
		return "", nil
	}
	return recs[0].Value, nil
}

// bumpGeneration gives the collection a new generation token after a
// change, so that every process drops the statistics it cached, and drops
// this process's at once.
func (s *Store) bumpGeneration(ctx context.Context) {
	s.stats.mu.Lock()
	s.stats.gen, s.stats.count = "", nil
	s.stats.mu.Unlock()
	obj := &models.Object{Class: s.metaClass(), ID: strfmtUUID(generationID), Properties: map[string]any{"value": newVersion()}}
	// best effort: a failure leaves the old token, and readers in other
	// processes their statistics until the next write
	_ = s.importBatch(context.WithoutCancel(ctx), []*models.Object{obj})
}

// cached returns the statistics cached under keys for the collection's
// current generation, or computes them (one value per key) and caches
// them when the collection has a generation.
func (s *Store) cached(ctx context.Context, keys []string, compute func() ([]int64, error)) ([]int64, error) {
	gen, err := s.generation(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(keys))
	s.stats.mu.Lock()
	if gen == "" || gen != s.stats.gen {
		s.stats.gen, s.stats.count = gen, map[string]int64{}
	}
	all := true
	for i, k := range keys {
		var ok bool
		out[i], ok = s.stats.count[k]
		all = all && ok
	}
	s.stats.mu.Unlock()
	if all {
		return out, nil
	}
	if out, err = compute(); err != nil {
		return nil, err
	}
	s.stats.mu.Lock()
	if gen != "" && gen == s.stats.gen {
		s.stats.room(len(keys))
		for i, k := range keys {
			s.stats.count[k] = out[i]
		}
	}
	s.stats.mu.Unlock()
	return out, nil
}

// counts runs the Aggregate count queries parts (alias -> query part,
// each returning meta{count}) that the cache does not hold, in one
// request, and returns every part's count.
func (s *Store) counts(ctx context.Context, parts map[string]string) (map[string]int64, error) {
	gen, err := s.generation(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(parts))
	var missing []string
	s.stats.mu.Lock()
	if gen == "" || gen != s.stats.gen {
		s.stats.gen, s.stats.count = gen, map[string]int64{}
	}
	for alias, part := range parts {
		if n, ok := s.stats.count[part]; ok {
			out[alias] = n
		} else {
			missing = append(missing, alias)
		}
	}
	s.stats.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	slices.Sort(missing)
	var b strings.Builder
	b.WriteString("{Aggregate{")
	for _, alias := range missing {
		fmt.Fprintf(&b, " %s: %s", alias, parts[alias])
	}
	b.WriteString("}}")
	data, err := s.raw(ctx, b.String())
	if err != nil {
		return nil, err
	}
	var agg map[string][]struct {
		Meta struct {
			Count int64 `json:"count"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(data["Aggregate"], &agg); err != nil {
		return nil, fmt.Errorf("decode statistics: %w", err)
	}
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	if gen != "" && gen == s.stats.gen {
		s.stats.room(len(missing))
	}
	for _, alias := range missing {
		if a := agg[alias]; len(a) > 0 {
			out[alias] = a[0].Meta.Count
		}
		if gen != "" && gen == s.stats.gen {
			s.stats.count[parts[alias]] = out[alias]
		}
	}
	return out, nil
}

// Open connects to the Weaviate of cfg (or fails at once with one line
// saying so when it is unreachable) and creates the collections when
// they are absent.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Store, error) {
	s := &Store{cfg: cfg, name: fmt.Sprintf("%s://%s/%s", Scheme, cfg.Host, cfg.Collection)}
	for _, o := range opts {
		o(s)
	}
	if s.embedder != nil && s.model == "" {
		return nil, fmt.Errorf("open %s: an embedder needs a model name", s.name)
	}
	if err := s.ping(ctx); err != nil {
		return nil, err
	}
	cl, err := client.NewClient(client.Config{Host: cfg.Host, Scheme: "http", Timeout: cfg.Timeout,
		ConnectionClient: &http.Client{Timeout: cfg.Timeout}})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", s.name, err)
	}
	s.cl = cl
	if err := s.ensureSchema(ctx); err != nil {
		return nil, fmt.Errorf("open %s: %w", s.name, err)
	}
	return s, nil
}

// OpenURL is Open with a store URL.
func OpenURL(ctx context.Context, raw string, opts ...Option) (*Store, error) {
	cfg, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg, opts...)
}

// pingTimeout bounds the first contact: a Weaviate that is down answers
// at once (connection refused); one that does not answer must not hang
// the command.
const pingTimeout = 5 * time.Second

func (s *Store) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.cfg.Host+"/v1/.well-known/ready", nil)
	if err != nil {
		return fmt.Errorf("open %s: %w", s.name, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("open %s: Weaviate is unreachable at %s (%v); start it (scripts/weaviate.sh start) or fix --store", s.name, s.cfg.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("open %s: Weaviate at %s is not ready (%s)", s.name, s.cfg.Host, resp.Status)
	}
	return nil
}

// Name returns the store URL.
func (s *Store) Name() string { return s.name }

// Close releases nothing (the client holds no connection of its own).
func (s *Store) Close() error { return nil }

// Config returns the store's configuration.
func (s *Store) Config() Config { return s.cfg }

func (s *Store) docClass() string { return s.cfg.Collection + "Doc" }

// DocumentObject returns the collection and object id of the record of
// the document at path (to read it from one node: GET
// /v1/objects/CLASS/ID?node_name=NODE).
func (s *Store) DocumentObject(path string) (class, id string) {
	return s.docClass(), objectID("doc", path)
}
func (s *Store) metaClass() string { return s.cfg.Collection + "Meta" }

func textProp(name, tokenization string, searchable, filterable bool) *models.Property {
	return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: tokenization,
		IndexSearchable: &searchable, IndexFilterable: &filterable}
}

func intProp(name string, filterable bool) *models.Property {
	return &models.Property{Name: name, DataType: []string{"int"}, IndexFilterable: &filterable}
}

func (s *Store) classes() []*models.Class {
	f := false
	stored := func(name string) *models.Property { return textProp(name, "word", false, false) }
	inverted := func(bm25 bool) *models.InvertedIndexConfig {
		c := &models.InvertedIndexConfig{Stopwords: &models.StopwordConfig{Preset: "none"}}
		if bm25 {
			c.Bm25 = &models.BM25Config{K1: index.DefaultK1, B: index.DefaultB}
		}
		return c
	}
	// with replicas, a node that was down catches up by itself (async
	// replication) and a delete it missed wins over its stale copy
	repl := &models.ReplicationConfig{Factor: int64(s.cfg.Replication)}
	if s.cfg.Replication > 1 {
		repl.AsyncEnabled = true
		repl.DeletionStrategy = "TimeBasedResolution"
	}
	shard := map[string]any{"desiredCount": s.cfg.Shards}
	return []*models.Class{{
		Class:               s.cfg.Collection,
		Description:         "DocMind sections",
		Vectorizer:          "none",
		InvertedIndexConfig: inverted(true),
		ReplicationConfig:   repl,
		ShardingConfig:      shard,
		Properties: []*models.Property{
			textProp("key", "field", false, true),
			textProp("doc", "field", false, true),
			textProp("version", "field", false, true),
			intProp("seq", true),
			stored("title"), stored("content"),
			intProp("page", false), intProp("pageEnd", false), stored("pageLabel"), intProp("chunk", false),
			{Name: "pagePrinted", DataType: []string{"boolean"}, IndexFilterable: &f},
			stored("docTitle"), stored("docEntity"), stored("docPeriod"), stored("kind"),
			textProp("entityKey", "field", false, true),
			textProp("periodKey", "field", false, true),
			textProp("terms", "whitespace", true, true),
			textProp("contextTerms", "whitespace", true, true),
			intProp("length", true),
		},
	}, {
		Class:               s.docClass(),
		Description:         "DocMind documents",
		Vectorizer:          "none",
		InvertedIndexConfig: inverted(false),
		ReplicationConfig:   repl,
		Properties: []*models.Property{
			textProp("path", "field", false, true),
			textProp("version", "field", false, true),
			stored("hash"), stored("format"), stored("title"), stored("mtime"), stored("ingestedAt"),
			intProp("size", false), intProp("pages", false), intProp("sections", false),
			// the document's sections with text and their total length:
			// the corpus totals BM25 and the judge read, summed over the
			// documents instead of scanning every section
			intProp("liveSections", true), intProp("textLength", true),
		},
	}, {
		Class:               s.metaClass(),
		Description:         "DocMind store record",
		Vectorizer:          "none",
		InvertedIndexConfig: inverted(false),
		ReplicationConfig:   repl,
		Properties:          []*models.Property{stored("value")},
	}}
}

// ensureSchema creates the collections that do not exist.
func (s *Store) ensureSchema(ctx context.Context) error {
	for _, c := range s.classes() {
		ok, err := s.cl.Schema().ClassExistenceChecker().WithClassName(c.Class).Do(ctx)
		if err != nil {
			return fmt.Errorf("check collection %s: %w", c.Class, err)
		}
		if ok {
			if err := s.addProperties(ctx, c); err != nil {
				return err
			}
			continue
		}
		if err := s.cl.Schema().ClassCreator().WithClass(c).Do(ctx); err != nil {
			// another process may have created it meanwhile
			if ok, err2 := s.cl.Schema().ClassExistenceChecker().WithClassName(c.Class).Do(ctx); err2 == nil && ok {
				continue
			}
			return fmt.Errorf("create collection %s (replication %d, shards %d): %w", c.Class, s.cfg.Replication, s.cfg.Shards, err)
		}
	}
	c, err := s.cl.Schema().ClassGetter().WithClassName(s.cfg.Collection).Do(ctx)
	if err != nil {
		return fmt.Errorf("read collection %s: %w", s.cfg.Collection, err)
	}
	s.blockMax = c.InvertedIndexConfig != nil && c.InvertedIndexConfig.UsingBlockMaxWAND
	return nil
}

// addProperties adds to an existing collection the properties of c it
// lacks (a collection created by an earlier version).
func (s *Store) addProperties(ctx context.Context, c *models.Class) error {
	have, err := s.cl.Schema().ClassGetter().WithClassName(c.Class).Do(ctx)
	if err != nil {
		return fmt.Errorf("read collection %s: %w", c.Class, err)
	}
	for _, p := range c.Properties {
		if slices.ContainsFunc(have.Properties, func(h *models.Property) bool { return strings.EqualFold(h.Name, p.Name) }) {
			continue
		}
		if err := s.cl.Schema().PropertyCreator().WithClassName(c.Class).WithProperty(p).Do(ctx); err != nil {
			return fmt.Errorf("add property %s to collection %s: %w", p.Name, c.Class, err)
		}
	}
	return nil
}

// Warning is a line for the user about the server, or "". Weaviate
// v1.35.2's BlockMax WAND keyword search, on by default for new
// collections, leaves out the best-scoring sections of queries of five
// terms or more (a section holding all seven terms of a question ranked
// below sections holding two: TestLongQueryFindsTheFullMatch), so a
// collection created with it ranks worse than the SQLite index.
// scripts/weaviate.sh starts servers with USE_INVERTED_SEARCHABLE=false,
// which makes new collections use the exhaustive WAND.
func (s *Store) Warning() string {
	if !s.blockMax {
		return ""
	}
	return fmt.Sprintf("the collection %s uses Weaviate's BlockMax WAND keyword search, which drops the best matches of long queries; "+
		"start Weaviate with USE_INVERTED_SEARCHABLE=false (as scripts/weaviate.sh does) and ingest into a new collection", s.cfg.Collection)
}

// Drop deletes the store's collections and everything in them.
func (s *Store) Drop(ctx context.Context) error {
	for _, c := range s.classes() {
		if err := s.cl.Schema().ClassDeleter().WithClassName(c.Class).Do(ctx); err != nil {
			return fmt.Errorf("drop %s: %w", c.Class, err)
		}
	}
	return nil
}

// namespace of the store's object UUIDs.
var namespace = uuid.MustParse("6f1c2a52-8d0e-4f3b-9a57-2b0c6d1e9f40")

func objectID(parts ...string) string {
	return uuid.NewSHA1(namespace, []byte(strings.Join(parts, "\x00"))).String()
}

func newVersion() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// --- writing ---

// PutDocument writes doc and its sections, replacing the document's old
// sections as a whole.
func (s *Store) PutDocument(ctx context.Context, doc index.Document, sections []schema.Section) error {
	return s.PutDocumentStream(ctx, doc, func(_ *index.Document, put func(schema.Section) error) error {
		for _, sec := range sections {
			if err := put(sec); err != nil {
				return err
			}
		}
		return nil
	})
}

// PutDocumentStream writes the sections write produces batch by batch
// under a new version, then switches the document to it and deletes the
// old version's sections. An error leaves the old document.
func (s *Store) PutDocumentStream(ctx context.Context, doc index.Document, write func(doc *index.Document, put func(schema.Section) error) error) error {
	if doc.Path == "" {
		return errors.New("write document: empty path")
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	// whether it succeeds or not, the write may have changed what readers
	// counted meanwhile
	defer s.bumpGeneration(ctx)
	version := newVersion()
	d := doc
	w := &sectionWriter{s: s, doc: &d, version: version, seen: map[string]int{}, text: textTotals{known: true}}
	var ierr error
	put := func(sec schema.Section) error {
		w.pending = append(w.pending, sec)
		if len(w.pending) >= s.cfg.BatchSize {
			ierr = w.flush(ctx)
		}
		return ierr
	}
	werr := write(&d, put)
	err := ierr
	if werr == nil {
		err = w.flush(ctx)
	}
	if err == nil && werr == nil {
		err = s.checkModel(ctx, w.dim)
	}
	if err == nil && werr == nil {
		// the record points readers at the new version only once the
		// node serves all its sections: under load a node can
		// acknowledge a batch before its searches see every object
		// (TestConformance/AtomicReplace)
		s.awaitSections(ctx, d.Path, version, w.probe, int(w.text.Live))
	}
	if err == nil && werr == nil {
		d.Sections = w.seq
		err = s.putDocRecord(ctx, d, version, w.text)
	}
	if err != nil || werr != nil {
		// best effort: the new version's sections are invisible anyway
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Timeout)
		defer cancel()
		_ = s.deleteSections(dctx, d.Path, version, true)
		if err == nil {
			return werr // the producer's error, as it is
		}
		return fmt.Errorf("write %s to %s: %w", doc.Path, s.name, err)
	}
	if err := s.deleteSections(ctx, d.Path, version, false); err != nil {
		return fmt.Errorf("write %s to %s: remove the old sections: %w", doc.Path, s.name, err)
	}
	return nil
}

var errWrite = errors.New("weaviate write failed")

func strfmtUUID(s string) strfmt.UUID { return strfmt.UUID(s) }

type sectionWriter struct {
	s       *Store
	doc     *index.Document
	version string
	// probe holds a term of each section with text (up to maxProbe):
	// a search for them finds every such section once the node serves it
	probe   []string
	pending []schema.Section
	seen    map[string]int
	seq     int
	dim     int
	text    textTotals // known from the start
}

func (w *sectionWriter) flush(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	s := w.s
	var vecs [][]float32
	if s.embedder != nil {
		texts := make([]string, len(w.pending))
		for i, sec := range w.pending {
			texts[i] = sec.Title + "\n" + sec.Content
			if sec.Title == "" {
				texts[i] = sec.Content
			}
		}
		var err error
		vecs, err = s.embedder.EmbedDocuments(ctx, texts)
		if err != nil {
			return fmt.Errorf("%w: embed %s with %s: %v", errWrite, w.doc.Path, s.model, err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("%w: embed %s with %s: got %d vectors for %d sections", errWrite, w.doc.Path, s.model, len(vecs), len(texts))
		}
		for _, v := range vecs {
			if w.dim == 0 {
				w.dim = len(v)
			}
			if len(v) != w.dim || w.dim == 0 {
				return fmt.Errorf("%w: embed %s with %s: vectors of dimensions %d and %d", errWrite, w.doc.Path, s.model, w.dim, len(v))
			}
			index.Normalize(v)
		}
	}
	objs := make([]*models.Object, len(w.pending))
	for i, sec := range w.pending {
		key := sec.ID
		if key == "" {
			key = index.StableID(w.doc.Path, sec.Title, sec.Page, sec.Chunk)
		}
		if n := w.seen[key]; n > 0 {
			w.seen[key] = n + 1
			key += "~" + strconv.Itoa(n+1)
		} else {
			w.seen[key] = 1
		}
		terms, length, ctxTerms := index.SectionTerms(*w.doc, sec)
		if len(terms) > 0 && len(w.probe) < maxProbe && !slices.Contains(w.probe, terms[0]) {
			w.probe = append(w.probe, terms[0])
		}
		if length > 0 {
			w.text.Live++
			w.text.Length += int64(length)
		} else {
			// the context field counts only for sections with text
			// (termStats counts it without a range filter on length)
			ctxTerms = nil
		}
		props := map[string]any{
			"key": key, "doc": w.doc.Path, "version": w.version, "seq": w.seq,
			"title": sec.Title, "content": sec.Content,
			"page": sec.Page, "pageEnd": sec.PageEnd, "pageLabel": sec.PageLabel, "chunk": sec.Chunk,
			"pagePrinted": sec.PagePrinted,
			"docTitle":    sec.DocTitle, "docEntity": sec.DocEntity, "docPeriod": sec.DocPeriod, "kind": string(sec.Kind),
			"entityKey": strings.ToLower(sec.DocEntity), "periodKey": strings.ToLower(sec.DocPeriod),
			"terms": strings.Join(terms, " "), "contextTerms": strings.Join(ctxTerms, " "),
			"length": length,
		}
		objs[i] = &models.Object{Class: s.cfg.Collection, ID: strfmtUUID(objectID(w.doc.Path, w.version, strconv.Itoa(w.seq))), Properties: props}
		if vecs != nil {
			objs[i].Vector = vecs[i]
		}
		w.seq++
	}
	if err := s.importBatch(ctx, objs); err != nil {
		return fmt.Errorf("%w: %s: %v", errWrite, w.doc.Path, err)
	}
	clear(w.pending)
	w.pending = w.pending[:0]
	if s.progress != nil {
		s.progress(w.doc.Path, w.seq)
	}
	return nil
}

// batchRetries is how many times a failed batch (or the failed objects of
// one) is sent again, with a growing pause, before the write fails.
const batchRetries = 4

// importBatch sends objs in one batch request, retrying the request and
// then the objects Weaviate refused.
func (s *Store) importBatch(ctx context.Context, objs []*models.Object) error {
	var last error
	for attempt := 0; attempt <= batchRetries && len(objs) > 0; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 250 * time.Millisecond):
			}
		}
		resp, err := s.cl.Batch().ObjectsBatcher().WithObjects(objs...).WithConsistencyLevel(s.cfg.Consistency).Do(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			last = describe(err)
			continue
		}
		var failed []*models.Object
		for i, r := range resp {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				last = errors.New(r.Result.Errors.Error[0].Message)
				if i < len(objs) {
					failed = append(failed, objs[i])
				}
			}
		}
		objs = failed
	}
	if len(objs) > 0 {
		return fmt.Errorf("batch import failed after %d attempts: %w", batchRetries+1, last)
	}
	return nil
}

func (s *Store) putDocRecord(ctx context.Context, d index.Document, version string, text textTotals) error {
	props := map[string]any{
		"path": d.Path, "version": version, "hash": d.Hash + readingTag, "format": d.Format, "title": d.Title,
		"mtime": d.ModTime.UTC().Format(time.RFC3339Nano), "ingestedAt": time.Now().UTC().Format(time.RFC3339Nano),
		"size": d.Size, "pages": d.Pages, "sections": d.Sections,
	}
	if text.known {
		props["liveSections"], props["textLength"] = text.Live, text.Length
	}
	obj := &models.Object{Class: s.docClass(), ID: strfmtUUID(objectID("doc", d.Path)), Properties: props}
	if err := s.importBatch(ctx, []*models.Object{obj}); err != nil {
		return fmt.Errorf("%w: record %s: %v", errWrite, d.Path, err)
	}
	return nil
}

// maxProbe bounds the terms awaitSections searches for.
const maxProbe = 64

// awaitSections waits, two seconds at most, until a search of path's
// new version for probe (a term of each section with text) finds its
// live sections with text; for a document of more than maxProbe such
// sections it returns at once. It is best effort: a failed search ends
// the wait, and the write goes on (the sections are written).
func (s *Store) awaitSections(ctx context.Context, path, version string, probe []string, live int) {
	if live == 0 || live > maxProbe || len(probe) == 0 {
		return
	}
	q := fmt.Sprintf(`{Get{v: %s(limit:%d, bm25:{query:%q, properties:["terms"]}, %s){_additional{id}}}}`,
		s.cfg.Collection, live, strings.Join(probe, " "), and(eq("doc", path), eq("version", version)).String())
	for attempt := 1; attempt < 20; attempt++ {
		data, err := s.raw(ctx, q)
		if err != nil {
			return
		}
		var got map[string][]json.RawMessage
		if json.Unmarshal(data["Get"], &got) != nil || len(got["v"]) >= live {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(attempt) * 10 * time.Millisecond):
		}
	}
}

// deleteSections deletes the sections of path of version (only) or of
// every version but it (except).
func (s *Store) deleteSections(ctx context.Context, path, version string, only bool) error {
	op := filters.NotEqual
	if only {
		op = filters.Equal
	}
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		eq("doc", path),
		filters.Where().WithPath([]string{"version"}).WithOperator(op).WithValueText(version),
	})
	return s.deleteWhere(ctx, s.cfg.Collection, where)
}

func (s *Store) deleteWhere(ctx context.Context, class string, where *filters.WhereBuilder) error {
	for range 100 { // a batch delete removes at most QUERY_MAXIMUM_RESULTS objects
		resp, err := s.cl.Batch().ObjectsBatchDeleter().WithClassName(class).WithWhere(where).
			WithConsistencyLevel(s.cfg.Consistency).Do(ctx)
		if err != nil {
			return describe(err)
		}
		if resp == nil || resp.Results == nil || resp.Results.Matches == 0 {
			return nil
		}
		if resp.Results.Failed > 0 {
			return fmt.Errorf("%d objects could not be deleted", resp.Results.Failed)
		}
		if resp.Results.Matches < resp.Results.Limit || resp.Results.Limit == 0 {
			return nil
		}
	}
	return errors.New("too many objects to delete")
}

// DeleteDocument removes the document's record, then its sections.
func (s *Store) DeleteDocument(ctx context.Context, path string) (bool, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, ok, err := s.Document(ctx, path)
	if err != nil || !ok {
		return false, err
	}
	defer s.bumpGeneration(ctx)
	if err := s.deleteWhere(ctx, s.docClass(), eq("path", path)); err != nil {
		return false, fmt.Errorf("delete document %s from %s: %w", path, s.name, err)
	}
	if err := s.deleteWhere(ctx, s.cfg.Collection, eq("doc", path)); err != nil {
		return false, fmt.Errorf("delete the sections of %s from %s: %w", path, s.name, err)
	}
	return true, nil
}

// TouchDocument records a new modification time.
func (s *Store) TouchDocument(ctx context.Context, path string, mtime time.Time) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	rec, ok, err := s.docRecord(ctx, path)
	if err != nil || !ok {
		return err
	}
	rec.doc.ModTime = mtime
	return s.putDocRecord(ctx, rec.doc, rec.version, rec.text)
}

// MissingVectors reports whether the store embeds and the document has a
// section without a vector.
func (s *Store) MissingVectors(ctx context.Context, path string) (bool, error) {
	if s.embedder == nil {
		return false, nil
	}
	rec, ok, err := s.docRecord(ctx, path)
	if err != nil || !ok || rec.doc.Sections == 0 {
		return false, err
	}
	q := fmt.Sprintf(`{Get{%s(limit:1, %s){_additional{vector}}}}`, s.cfg.Collection,
		and(eq("doc", path), eq("version", rec.version)).String())
	var out []struct {
		Additional struct {
			Vector []float32 `json:"vector"`
		} `json:"_additional"`
	}
	if err := s.get(ctx, q, s.cfg.Collection, &out); err != nil {
		return false, err
	}
	return len(out) > 0 && len(out[0].Additional.Vector) == 0, nil
}

// --- reading ---

// get runs a Get query and decodes the class's result list into out.
func (s *Store) get(ctx context.Context, q, class string, out any) error {
	data, err := s.raw(ctx, q)
	if err != nil {
		return err
	}
	var get map[string]json.RawMessage
	if err := json.Unmarshal(data["Get"], &get); err != nil {
		return fmt.Errorf("decode the reply of %s: %w", s.name, err)
	}
	if err := json.Unmarshal(get[class], out); err != nil {
		return fmt.Errorf("decode the reply of %s: %w", s.name, err)
	}
	return nil
}

// raw runs a GraphQL query, returning its data or its first error.
func (s *Store) raw(ctx context.Context, q string) (map[string]json.RawMessage, error) {
	resp, err := s.cl.GraphQL().Raw().WithQuery(q).Do(ctx)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", s.name, describe(err))
	}
	if len(resp.Errors) > 0 {
		return nil, fmt.Errorf("query %s: %s", s.name, resp.Errors[0].Message)
	}
	out := make(map[string]json.RawMessage, len(resp.Data))
	for k, v := range resp.Data {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return out, nil
}

type docRec struct {
	Path       string `json:"path"`
	Version    string `json:"version"`
	Hash       string `json:"hash"`
	Format     string `json:"format"`
	Title      string `json:"title"`
	Mtime      string `json:"mtime"`
	IngestedAt string `json:"ingestedAt"`
	Size       int64  `json:"size"`
	Pages      int    `json:"pages"`
	Sections   int    `json:"sections"`
	Live       *int64 `json:"liveSections"`
	TextLength *int64 `json:"textLength"`
}

const docFields = `path version hash format title mtime ingestedAt size pages sections liveSections textLength`

type record struct {
	doc     index.Document
	version string
	text    textTotals
}

// textTotals are a document's sections with text and their total length
// in stems; known is false for a record written before they were kept.
type textTotals struct {
	Live, Length int64
	known        bool
}

// readingTag follows a document's hash in its record: the
// index.ReadingVersion its sections were read by. A record without the
// current tag reads as a hash of "", a changed document, so the next
// ingest reads it again (as the index does) instead of mixing sections
// read two ways.
var readingTag = "@reading" + strconv.Itoa(index.ReadingVersion)

func (r docRec) record() record {
	mt, _ := time.Parse(time.RFC3339Nano, r.Mtime)
	ing, _ := time.Parse(time.RFC3339Nano, r.IngestedAt)
	hash, current := strings.CutSuffix(r.Hash, readingTag)
	if !current {
		hash = ""
	}
	return record{doc: index.Document{Path: r.Path, Hash: hash, Size: r.Size, ModTime: mt, Format: r.Format,
		Pages: r.Pages, Title: r.Title, IngestedAt: ing, Sections: r.Sections}, version: r.Version,
		text: textTotals{Live: deref(r.Live), Length: deref(r.TextLength), known: r.Live != nil && r.TextLength != nil}}
}

func (s *Store) docRecord(ctx context.Context, path string) (record, bool, error) {
	recs, err := s.docRecords(ctx, []string{path})
	if err != nil {
		return record{}, false, err
	}
	r, ok := recs[path]
	return r, ok, nil
}

// docRecords reads the records of the documents at paths.
func (s *Store) docRecords(ctx context.Context, paths []string) (map[string]record, error) {
	out := map[string]record{}
	if len(paths) == 0 {
		return out, nil
	}
	w := filters.Where().WithPath([]string{"path"}).WithOperator(filters.ContainsAny).WithValueText(paths...)
	q := fmt.Sprintf(`{Get{%s(limit:%d, %s){%s}}}`, s.docClass(), len(paths)+1, w.String(), docFields)
	var recs []docRec
	if err := s.get(ctx, q, s.docClass(), &recs); err != nil {
		return nil, err
	}
	for _, r := range recs {
		out[r.Path] = r.record()
	}
	return out, nil
}

// Document returns the document at path.
func (s *Store) Document(ctx context.Context, path string) (index.Document, bool, error) {
	r, ok, err := s.docRecord(ctx, path)
	if err != nil {
		return index.Document{}, false, fmt.Errorf("read document %s: %w", path, err)
	}
	return r.doc, ok, nil
}

// pageSize is the number of objects read per request when listing.
const pageSize = 1000

// Documents lists every document, ordered by path.
func (s *Store) Documents(ctx context.Context) ([]index.Document, error) {
	var out []index.Document
	after := ""
	for {
		cursor := ""
		if after != "" {
			cursor = fmt.Sprintf(`, after:%q`, after)
		}
		q := fmt.Sprintf(`{Get{%s(limit:%d%s){%s _additional{id}}}}`, s.docClass(), pageSize, cursor, docFields)
		var recs []struct {
			docRec
			Additional struct {
				ID string `json:"id"`
			} `json:"_additional"`
		}
		if err := s.get(ctx, q, s.docClass(), &recs); err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		for _, r := range recs {
			out = append(out, r.record().doc)
		}
		if len(recs) < pageSize {
			break
		}
		after = recs[len(recs)-1].Additional.ID
	}
	slices.SortFunc(out, func(a, b index.Document) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

type secRec struct {
	Key         string  `json:"key"`
	Doc         string  `json:"doc"`
	Version     string  `json:"version"`
	Seq         int     `json:"seq"`
	Title       string  `json:"title"`
	Content     string  `json:"content"`
	Page        int     `json:"page"`
	PageEnd     int     `json:"pageEnd"`
	PageLabel   string  `json:"pageLabel"`
	Chunk       int     `json:"chunk"`
	PagePrinted bool    `json:"pagePrinted"`
	DocTitle    string  `json:"docTitle"`
	DocEntity   string  `json:"docEntity"`
	DocPeriod   string  `json:"docPeriod"`
	Kind        string  `json:"kind"`
	Terms       string  `json:"terms"`
	Context     string  `json:"contextTerms"`
	Length      int     `json:"length"`
	Additional  secAddl `json:"_additional"`
}

type secAddl struct {
	ID       string  `json:"id"`
	Score    string  `json:"score"`
	Distance float64 `json:"distance"`
}

const secFields = `key doc version seq title content page pageEnd pageLabel chunk pagePrinted docTitle docEntity docPeriod kind terms contextTerms length`

func (r secRec) section() schema.Section {
	return schema.Section{ID: r.Key, Title: r.Title, Content: r.Content, Source: r.Doc, Page: r.Page, PageEnd: r.PageEnd,
		PageLabel: r.PageLabel, Chunk: r.Chunk, PagePrinted: r.PagePrinted, DocTitle: r.DocTitle, DocEntity: r.DocEntity, DocPeriod: r.DocPeriod,
		Kind: schema.SectionKind(r.Kind)}
}

// Sections returns the document's sections in order.
func (s *Store) Sections(ctx context.Context, path string) ([]schema.Section, error) {
	rec, ok, err := s.docRecord(ctx, path)
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("read sections of %s: %w", path, err)
		}
		return nil, err
	}
	var out []schema.Section
	last := -1
	for {
		w := and(eq("doc", path), eq("version", rec.version),
			filters.Where().WithPath([]string{"seq"}).WithOperator(filters.GreaterThan).WithValueInt(int64(last)))
		q := fmt.Sprintf(`{Get{%s(limit:%d, sort:[{path:["seq"], order:asc}], %s){%s}}}`, s.cfg.Collection, pageSize, w.String(), secFields)
		var recs []secRec
		if err := s.get(ctx, q, s.cfg.Collection, &recs); err != nil {
			return nil, fmt.Errorf("read sections of %s: %w", path, err)
		}
		for _, r := range recs {
			out = append(out, r.section())
			last = r.Seq
		}
		if len(recs) < pageSize {
			return out, nil
		}
	}
}

// Section returns the section with this key (of the current version of
// its document; the first by document path when several documents hold
// one).
func (s *Store) Section(ctx context.Context, id string) (schema.Section, bool, error) {
	q := fmt.Sprintf(`{Get{%s(limit:100, %s){%s}}}`, s.cfg.Collection, eq("key", id).String(), secFields)
	var recs []secRec
	if err := s.get(ctx, q, s.cfg.Collection, &recs); err != nil {
		return schema.Section{}, false, fmt.Errorf("read section %s: %w", id, err)
	}
	recs, err := s.current(ctx, recs)
	if err != nil {
		return schema.Section{}, false, fmt.Errorf("read section %s: %w", id, err)
	}
	if len(recs) == 0 {
		return schema.Section{}, false, nil
	}
	slices.SortFunc(recs, func(a, b secRec) int { return strings.Compare(a.Doc, b.Doc) })
	return recs[0].section(), true, nil
}

// current keeps the sections of their document's current version.
func (s *Store) current(ctx context.Context, recs []secRec) ([]secRec, error) {
	var paths []string
	for _, r := range recs {
		if !slices.Contains(paths, r.Doc) {
			paths = append(paths, r.Doc)
		}
	}
	docs, err := s.docRecords(ctx, paths)
	if err != nil {
		return nil, err
	}
	out := recs[:0]
	for _, r := range recs {
		if d, ok := docs[r.Doc]; ok && d.version == r.Version {
			out = append(out, r)
		}
	}
	return out, nil
}

// --- search ---

// HybridSearch ranks sections by Weaviate's BM25F over their stems and
// their document's context and, with an embedder, by nearVector, fused by
// reciprocal rank fusion.
func (s *Store) HybridSearch(ctx context.Context, query string, k int, opt index.SearchOptions) ([]index.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if s.embedder == nil {
		hits, err := s.lexical(ctx, query, k, opt)
		if err != nil {
			return nil, fmt.Errorf("search %s for %q: %w", s.name, query, err)
		}
		return hits, nil
	}
	depth := max(4*k, 50)
	lex, err := s.lexical(ctx, query, depth, opt)
	if err != nil {
		return nil, fmt.Errorf("search %s for %q: %w", s.name, query, err)
	}
	dense, err := s.dense(ctx, query, depth, opt)
	if err != nil {
		return nil, fmt.Errorf("dense search %s for %q: %w", s.name, query, err)
	}
	return index.Fuse(k, lex, dense), nil
}

// whereOf translates opt.Where, plus a condition, to a Weaviate filter.
func whereOf(w index.Where, extra ...*filters.WhereBuilder) *filters.WhereBuilder {
	ops := extra
	if len(w.Documents) > 0 {
		ops = append(ops, filters.Where().WithPath([]string{"doc"}).WithOperator(filters.ContainsAny).WithValueText(w.Documents...))
	}
	if w.Folder != "" {
		f := strings.TrimRight(w.Folder, "/")
		ops = append(ops, filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
			eq("doc", f),
			// Weaviate's Like has no escape: a folder name with * or ?
			// matches a little more, which opt.Where.Match after the
			// search removes
			filters.Where().WithPath([]string{"doc"}).WithOperator(filters.Like).WithValueText(f + "/*"),
		}))
	}
	if w.Entity != "" {
		ops = append(ops, eq("entityKey", strings.ToLower(w.Entity)))
	}
	if w.Period != "" {
		ops = append(ops, eq("periodKey", strings.ToLower(w.Period)))
	}
	switch len(ops) {
	case 0:
		return nil
	case 1:
		return ops[0]
	}
	return and(ops...)
}

func (s *Store) lexical(ctx context.Context, query string, k int, opt index.SearchOptions) ([]index.Hit, error) {
	qterms := textproc.Terms(query)
	if len(qterms) == 0 {
		return nil, nil
	}
	props := `["terms", "contextTerms"]`
	if opt.SetContextWeight && opt.ContextWeight == 0 {
		props = `["terms"]`
	}
	if opt.SetBM25 {
		return nil, errors.New("per-query BM25 parameters are not supported by Weaviate (the collection's are k1 1.2, b 0.75)")
	}
	// Weaviate ranks any section matching a query term; the context field
	// must only reorder sections the text matched, as in the index.
	textMatch := filters.Where().WithPath([]string{"terms"}).WithOperator(filters.ContainsAny).WithValueText(dedupe(qterms)...)
	where := whereOf(opt.Where, textMatch)
	stats, err := s.termStats(ctx, qterms)
	if err != nil {
		return nil, err
	}
	if stats.n == 0 {
		return nil, nil
	}
	cw := index.DefaultContextWeight
	if opt.SetContextWeight {
		cw = opt.ContextWeight
	}
	// Weaviate's BM25F weighs the context field into one score, with its
	// own length normalisation; the index adds it apart, unnormalised, to
	// sections the text matched. The candidates are the best sections by
	// the text alone and the best by Weaviate's BM25F, and they are ranked
	// again with the index's own score, so that both stores rank alike
	// (TestSameRankingAsSQLite). The context adds at most ctxBound to a
	// section's text score, so once the k-th best score reaches the text
	// score of the last text candidate plus ctxBound no unseen section can
	// enter the top k; until then more text candidates are read, up to
	// maxCandidates.
	ctxBound := 0.0
	if cw > 0 {
		ctxBound = cw * stats.contextBound()
	}
	base := max(4*k, k+40) + len(opt.Exclude)
	fetch, attempts := base, 0
	var best []ranked
	for {
		var b strings.Builder
		fmt.Fprintf(&b, `{Get{text: %s(limit:%d, bm25:{query:%q, properties:["terms"]}, %s){%s _additional{id score}}`,
			s.cfg.Collection, fetch, strings.Join(qterms, " "), where.String(), candidateFields)
		if props != `["terms"]` {
			fmt.Fprintf(&b, ` both: %s(limit:%d, bm25:{query:%q, properties:%s}, %s){%s _additional{id score}}`,
				s.cfg.Collection, base, strings.Join(qterms, " "), props, where.String(), candidateFields)
		}
		b.WriteString(`}}`)
		data, err := s.raw(ctx, b.String())
		if err != nil {
			return nil, err
		}
		var get map[string][]secRec
		if err := json.Unmarshal(data["Get"], &get); err != nil {
			return nil, fmt.Errorf("decode the reply of %s: %w", s.name, err)
		}
		text := get["text"]
		got := len(text)
		// the text score of the last text candidate bounds every section
		// not read (Weaviate's BM25 over the same stems, with a margin for
		// its own document count and length average)
		lastText := math.Inf(1)
		if got > 0 {
			last := text[got-1]
			lastText, _ = stats.score(last.Terms, "", last.Length, 0)
			if ws, err := strconv.ParseFloat(last.Additional.Score, 64); err == nil {
				lastText = max(lastText, ws)
			}
			lastText *= 1.01
		}
		recs := text
		seen := map[string]bool{}
		for _, r := range text {
			seen[r.Additional.ID] = true
		}
		for _, r := range get["both"] {
			if !seen[r.Additional.ID] {
				seen[r.Additional.ID] = true
				recs = append(recs, r)
			}
		}
		all := len(recs)
		if recs, err = s.current(ctx, recs); err != nil {
			return nil, err
		}
		// sections of a version replaced between the search and the
		// version check are dropped; the search is asked again, which
		// finds the new version's (TestConformance/AtomicReplace)
		stale := len(recs) < all
		var rs []ranked
		for _, r := range recs {
			sec := r.section()
			if opt.Exclude[sec.Key()] || !opt.Where.Match(sec) {
				continue
			}
			score, rel := stats.score(r.Terms, r.Context, r.Length, cw)
			sec.RelevanceScore = rel
			rs = append(rs, ranked{index.Hit{Section: sec, Score: score, Lexical: score}, r.Seq, r.Additional.ID})
		}
		// ties in their order in the document, as the index breaks them
		// (by insertion)
		slices.SortFunc(rs, func(a, b ranked) int {
			return cmp.Or(cmp.Compare(b.hit.Score, a.hit.Score), strings.Compare(a.hit.Section.Source, b.hit.Section.Source), cmp.Compare(a.seq, b.seq))
		})
		best = rs[:min(k, len(rs))]
		complete := got < fetch || len(best) >= k && best[k-1].hit.Score >= lastText+ctxBound
		if stale {
			// (with a growing pause: under load a node can show the new
			// record before it serves the new version's sections)
			if attempts++; attempts < 6 {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Duration(attempts) * 20 * time.Millisecond):
				}
				continue
			}
		}
		if complete || fetch >= maxCandidates {
			hits, err := s.withText(ctx, best)
			if err != nil {
				return nil, err
			}
			// a section ranked above and deleted before its text was
			// read belongs to a version replaced meanwhile: the search
			// is asked again, which finds the new version's sections,
			// rather than return the old version with some missing
			if len(hits) < len(best) {
				if attempts++; attempts < 6 {
					fetch = base
					continue
				}
			}
			return hits, nil
		}
		fetch = min(4*fetch, maxCandidates)
	}
}

// ranked is a search candidate, read with candidateFields and scored.
type ranked struct {
	hit index.Hit
	seq int
	id  string // the object's id
}

// candidateFields are the fields a search ranks its candidates with:
// everything but the section's text, which is read for the best only
// (withText).
const candidateFields = `key doc version seq docEntity docPeriod terms contextTerms length`

// withText returns the hits of rs with their sections read in full; a
// section deleted since it was ranked is left out.
func (s *Store) withText(ctx context.Context, rs []ranked) ([]index.Hit, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	ids := make([]*filters.WhereBuilder, len(rs))
	for i, r := range rs {
		ids[i] = filters.Where().WithPath([]string{"id"}).WithOperator(filters.Equal).WithValueText(r.id)
	}
	where := ids[0]
	if len(ids) > 1 {
		where = filters.Where().WithOperator(filters.Or).WithOperands(ids)
	}
	q := fmt.Sprintf(`{Get{%s(limit:%d, %s){%s _additional{id}}}}`, s.cfg.Collection, len(rs), where.String(), secFields)
	var recs []secRec
	if err := s.get(ctx, q, s.cfg.Collection, &recs); err != nil {
		return nil, err
	}
	full := make(map[string]secRec, len(recs))
	for _, r := range recs {
		full[r.Additional.ID] = r
	}
	out := make([]index.Hit, 0, len(rs))
	for _, r := range rs {
		f, ok := full[r.id]
		if !ok {
			continue
		}
		h := r.hit
		rel := h.Section.RelevanceScore
		h.Section = f.section()
		h.Section.RelevanceScore = rel
		out = append(out, h)
	}
	return out, nil
}

// maxCandidates bounds the text candidates a search reads to rank the
// best k exactly: past it (a corpus where many sections score alike) the
// ranking is that of the candidates read.
const maxCandidates = 1024

func dedupe(terms []string) []string {
	out := slices.Clone(terms)
	slices.Sort(out)
	return slices.Compact(out)
}

// termStats are a query's BM25 statistics, read from the collection.
type termStats struct {
	n      int64
	avgdl  float64
	qtf    map[string]int
	df     map[string]int64
	ctxDF  map[string]int64
	k1, b  float64
	unitIn float64
}

// termCount is the aggregate (for counts) of the sections whose field
// holds the stem t.
func (s *Store) termCount(field, t string) string {
	return fmt.Sprintf(`%s(%s){meta{count}}`, s.cfg.Collection, eq(field, t).String())
}

// termStats reads, in one request, the number of sections with text,
// their total length and each query term's document frequency.
func (s *Store) termStats(ctx context.Context, qterms []string) (*termStats, error) {
	st := &termStats{qtf: map[string]int{}, df: map[string]int64{}, ctxDF: map[string]int64{}, k1: index.DefaultK1, b: index.DefaultB}
	for _, t := range qterms {
		st.qtf[t]++
	}
	uniq := dedupe(qterms)
	parts := map[string]string{}
	for i, t := range uniq {
		// (a section holding a stem or a context stem has text: no
		// filter on length, which costs a range scan)
		parts["t"+strconv.Itoa(i)] = s.termCount("terms", t)
		parts["c"+strconv.Itoa(i)] = s.termCount("contextTerms", t)
	}
	counts, err := s.counts(ctx, parts)
	if err != nil {
		return nil, err
	}
	for i, t := range uniq {
		st.df[t], st.ctxDF[t] = counts["t"+strconv.Itoa(i)], counts["c"+strconv.Itoa(i)]
	}
	n, length, err := s.corpusTotals(ctx)
	if err != nil {
		return nil, err
	}
	st.n = n
	if n > 0 {
		st.avgdl = float64(length) / float64(n)
	}
	nf := float64(st.n)
	for t, qtf := range st.qtf {
		df := float64(st.df[t])
		if df == 0 {
			st.unitIn += math.Log(1+(nf-0.5)/1.5) * float64(qtf)
			continue
		}
		df = min(df, nf)
		st.unitIn += math.Log(1+(nf-df+0.5)/(df+0.5)) * float64(qtf)
	}
	return st, nil
}

// score is the index's lexical score of a section with these text and
// context terms and length (index.Index.HybridSearch without
// embeddings): BM25 over the text, plus, when the text matched, the
// context field's terms with weight cw and no length normalisation; rel
// is its RelevanceScore, the text's score over that of an average
// section holding every query term once.
func (st *termStats) score(terms, context string, length int, cw float64) (score, rel float64) {
	if st.unitIn == 0 || st.avgdl == 0 {
		return 0, 0
	}
	count := func(s string) map[string]int {
		tf := map[string]int{}
		for _, t := range strings.Fields(s) {
			if _, ok := st.qtf[t]; ok {
				tf[t]++
			}
		}
		return tf
	}
	n := float64(st.n)
	idf := func(df float64) float64 {
		df = min(df, n)
		return math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	tf := count(terms)
	text := 0.0
	for t, qtf := range st.qtf {
		f := float64(tf[t])
		if f == 0 || st.df[t] == 0 {
			continue
		}
		text += idf(float64(st.df[t])) * float64(qtf) * (st.k1 + 1) * f / (f + st.k1*(1-st.b) + st.k1*st.b*float64(length)/st.avgdl)
	}
	score = text
	if text > 0 && cw > 0 {
		ctf := count(context)
		for t, qtf := range st.qtf {
			f := float64(ctf[t])
			if f == 0 || st.ctxDF[t] == 0 {
				continue
			}
			score += cw * idf(float64(st.ctxDF[t])) * float64(qtf) * (st.k1 + 1) * f / (f + st.k1)
		}
	}
	return score, min(1, text/st.unitIn)
}

// contextBound is the most the context field can add, with weight 1, to
// a section's score: every query term in it, however often.
func (st *termStats) contextBound() float64 {
	n := float64(st.n)
	bound := 0.0
	for t, qtf := range st.qtf {
		if df := float64(st.ctxDF[t]); df > 0 {
			df = min(df, n)
			bound += math.Log(1+(n-df+0.5)/(df+0.5)) * float64(qtf) * (st.k1 + 1)
		}
	}
	return bound
}

// corpusTotals returns the number of current sections with text and
// their total length, summed over the document records, or counted over
// the sections when a record predates these totals.
func (s *Store) corpusTotals(ctx context.Context) (n, length int64, err error) {
	v, err := s.cached(ctx, []string{"totals:sections", "totals:length"}, func() ([]int64, error) {
		n, length, ok, err := s.readTotals(ctx)
		if err == nil && !ok {
			n, length, err = s.countTotals(ctx)
		}
		return []int64{n, length}, err
	})
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

// readTotals reads the corpus totals from the document records.
func (s *Store) readTotals(ctx context.Context) (n, length int64, ok bool, err error) {
	data, err := s.raw(ctx, fmt.Sprintf(`{Aggregate{docs: %s{meta{count} liveSections{sum count} textLength{sum count}}}}`, s.docClass()))
	if err != nil {
		return 0, 0, false, err
	}
	n2, l, ok, err := totals(data)
	return n2, int64(l), ok, err
}

// countTotals counts the sections with text and their total length.
func (s *Store) countTotals(ctx context.Context) (n, length int64, err error) {
	data, err := s.raw(ctx, fmt.Sprintf(`{Aggregate{all: %s(%s){meta{count} length{sum}}}}`, s.cfg.Collection, live().String()))
	if err != nil {
		return 0, 0, err
	}
	var agg map[string][]struct {
		Meta struct {
			Count int64 `json:"count"`
		} `json:"meta"`
		Length struct {
			Sum float64 `json:"sum"`
		} `json:"length"`
	}
	if err := json.Unmarshal(data["Aggregate"], &agg); err != nil {
		return 0, 0, fmt.Errorf("decode statistics: %w", err)
	}
	if a := agg["all"]; len(a) > 0 {
		return a[0].Meta.Count, int64(a[0].Length.Sum), nil
	}
	return 0, 0, nil
}

// totals decodes the reply to totalsQuery: the number of current
// sections with text and their total length, summed over the documents;
// ok is false when a document's record predates these totals, and then
// the sections must be counted.
func totals(data map[string]json.RawMessage) (n int64, length float64, ok bool, err error) {
	var agg map[string][]struct {
		Meta struct {
			Count int64 `json:"count"`
		} `json:"meta"`
		Live struct {
			Sum   float64 `json:"sum"`
			Count int64   `json:"count"`
		} `json:"liveSections"`
		Length struct {
			Sum   float64 `json:"sum"`
			Count int64   `json:"count"`
		} `json:"textLength"`
	}
	if err := json.Unmarshal(data["Aggregate"], &agg); err != nil {
		return 0, 0, false, fmt.Errorf("decode the corpus totals: %w", err)
	}
	d := agg["docs"]
	if len(d) == 0 || d[0].Live.Count < d[0].Meta.Count || d[0].Length.Count < d[0].Meta.Count {
		return 0, 0, false, nil
	}
	return int64(d[0].Live.Sum), d[0].Length.Sum, true, nil
}

// live matches the sections that have text (the ones BM25 counts).
func live() *filters.WhereBuilder {
	return filters.Where().WithPath([]string{"length"}).WithOperator(filters.GreaterThan).WithValueInt(0)
}

func (s *Store) dense(ctx context.Context, query string, k int, opt index.SearchOptions) ([]index.Hit, error) {
	model, dim, err := s.EmbeddingModel(ctx)
	if err != nil {
		return nil, err
	}
	if model == "" {
		return nil, nil
	}
	if model != s.model {
		return nil, fmt.Errorf("%w: the store's vectors are from %s, the query's from %s", index.ErrModelMismatch, model, s.model)
	}
	v, err := s.embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("embed the query with %s: %w", s.model, err)
	}
	if len(v) != dim {
		return nil, fmt.Errorf("%w: query vector has dimension %d, the store's %d", index.ErrModelMismatch, len(v), dim)
	}
	index.Normalize(v)
	vec, _ := json.Marshal(v)
	where := ""
	if w := whereOf(opt.Where); w != nil {
		where = ", " + w.String()
	}
	fetch := 2*k + len(opt.Exclude) + 8
	q := fmt.Sprintf(`{Get{%s(limit:%d, nearVector:{vector:%s}%s){%s _additional{id distance}}}}`, s.cfg.Collection, fetch, vec, where, secFields)
	var recs []secRec
	if err := s.get(ctx, q, s.cfg.Collection, &recs); err != nil {
		return nil, err
	}
	if recs, err = s.current(ctx, recs); err != nil {
		return nil, err
	}
	var out []index.Hit
	for _, r := range recs {
		sec := r.section()
		if opt.Exclude[sec.Key()] || !opt.Where.Match(sec) {
			continue
		}
		sim := 1 - r.Additional.Distance
		sec.RelevanceScore = max(0, min(1, sim))
		out = append(out, index.Hit{Section: sec, Score: sim, Dense: sim})
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// Retriever returns the pipeline's retriever over the store, with the
// relevance floor of the SQLite index.
func (s *Store) Retriever() schema.Retriever {
	r := index.NewSearcherRetriever(s, s.name, s.embedder != nil)
	r.Resolver, r.Lister = index.NewListResolver(s), s
	return r
}

// --- embedding model record ---

type metaRec struct {
	Value string `json:"value"`
}

// EmbeddingModel returns the recorded embedding model and dimension.
func (s *Store) EmbeddingModel(ctx context.Context) (string, int, error) {
	q := fmt.Sprintf(`{Get{%s(limit:1, %s){value}}}`, s.metaClass(), filters.Where().WithPath([]string{"id"}).WithOperator(filters.Equal).WithValueText(objectID("meta", "embedding")).String())
	var recs []metaRec
	if err := s.get(ctx, q, s.metaClass(), &recs); err != nil {
		return "", 0, fmt.Errorf("read the embedding model of %s: %w", s.name, err)
	}
	if len(recs) == 0 || recs[0].Value == "" {
		return "", 0, nil
	}
	model, d, _ := strings.Cut(recs[0].Value, "\x00")
	dim, _ := strconv.Atoi(d)
	return model, dim, nil
}

// checkModel records the embedding model on the first write with vectors
// and refuses vectors of another model or dimension.
func (s *Store) checkModel(ctx context.Context, dim int) error {
	if s.embedder == nil || dim == 0 {
		return nil
	}
	model, have, err := s.EmbeddingModel(ctx)
	if err != nil {
		return err
	}
	if model != "" {
		if model != s.model || have != dim {
			return fmt.Errorf("%w: %s holds vectors of %s (dimension %d), not %s (dimension %d)", index.ErrModelMismatch, s.name, model, have, s.model, dim)
		}
		return nil
	}
	obj := &models.Object{Class: s.metaClass(), ID: strfmtUUID(objectID("meta", "embedding")),
		Properties: map[string]any{"value": s.model + "\x00" + strconv.Itoa(dim)}}
	return s.importBatch(ctx, []*models.Object{obj})
}

// --- corpus statistics ---

// Corpus returns the statistics the offline judge needs.
func (s *Store) Corpus() judge.Corpus { return corpus{s} }

type corpus struct{ s *Store }

// Size returns the number of sections with text.
func (c corpus) Size(ctx context.Context) (int, error) {
	n, _, err := c.s.corpusTotals(ctx)
	if err != nil {
		return 0, fmt.Errorf("%s: count the sections: %w", c.s.name, err)
	}
	return int(n), nil
}

func (c corpus) count(ctx context.Context, where *filters.WhereBuilder) (int, error) {
	data, err := c.s.raw(ctx, fmt.Sprintf(`{Aggregate{%s(%s){meta{count}}}}`, c.s.cfg.Collection, where.String()))
	if err != nil {
		return 0, err
	}
	var agg map[string][]struct {
		Meta struct {
			Count int `json:"count"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(data["Aggregate"], &agg); err != nil {
		return 0, err
	}
	if a := agg[c.s.cfg.Collection]; len(a) > 0 {
		return a[0].Meta.Count, nil
	}
	return 0, nil
}

// DocFreqs counts the sections that hold each stem (for package spell), in
// requests of up to docFreqBatch counts each.
func (c corpus) DocFreqs(ctx context.Context, stems []string) ([]int, error) {
	out := make([]int, len(stems))
	uniq := dedupe(stems)
	df := make(map[string]int64, len(uniq))
	for lo := 0; lo < len(uniq); lo += docFreqBatch {
		batch := uniq[lo:min(lo+docFreqBatch, len(uniq))]
		parts := make(map[string]string, len(batch))
		for i, t := range batch {
			parts["t"+strconv.Itoa(i)] = c.s.termCount("terms", t)
		}
		counts, err := c.s.counts(ctx, parts)
		if err != nil {
			return nil, fmt.Errorf("%s: count the sections of %d terms: %w", c.s.name, len(uniq), err)
		}
		for i, t := range batch {
			df[t] = counts["t"+strconv.Itoa(i)]
		}
	}
	for i, t := range stems {
		out[i] = int(df[t])
	}
	return out, nil
}

// docFreqBatch bounds the counts of one DocFreqs request.
const docFreqBatch = 128

// GroupDocFreq counts the sections that mention every stem of term, each
// exactly or through a synonym of lex, in one filtered count. A synonym
// phrase counts where all its words occur (in any order): it can only
// overstate how common a term is, as the index does past its phrase
// verification limit.
func (c corpus) GroupDocFreq(ctx context.Context, term string, lex *lexicon.Thesaurus) (int, error) {
	v, err := c.s.cached(ctx, []string{fmt.Sprintf("group\x00%p\x00%s", lex, term)}, func() ([]int64, error) {
		n, err := c.groupDocFreq(ctx, term, lex)
		return []int64{int64(n)}, err
	})
	if err != nil {
		return 0, err
	}
	return int(v[0]), nil
}

func (c corpus) groupDocFreq(ctx context.Context, term string, lex *lexicon.Thesaurus) (int, error) {
	stems := textproc.Terms(term)
	if len(stems) == 0 {
		return c.Size(ctx)
	}
	// every operand requires a stem, so only sections with text match
	var ops []*filters.WhereBuilder
	for _, st := range stems {
		alts := []*filters.WhereBuilder{eq("terms", st)}
		for _, e := range lex.Synonyms(st) {
			terms := textproc.Terms(e.Text)
			if len(terms) == 0 {
				continue
			}
			var all []*filters.WhereBuilder
			for _, t := range terms {
				all = append(all, eq("terms", t))
			}
			alt := all[0]
			if len(all) > 1 {
				alt = and(all...)
			}
			if e.IsPhrase() {
				// (a phrase may hold one indexed word: "time off")
				// as the index does: the sections holding the phrase's
				// words are read, up to phraseVerifyLimit, and only those
				// with the words in order count
				keys, ok, err := c.withPhrase(ctx, alt, e)
				if err != nil {
					return 0, fmt.Errorf("%s: count the sections that mention %q: %w", c.s.name, term, err)
				}
				if ok {
					if len(keys) == 0 {
						continue
					}
					alt = filters.Where().WithPath([]string{"key"}).WithOperator(filters.ContainsAny).WithValueText(keys...)
				}
			}
			alts = append(alts, alt)
		}
		if len(alts) == 1 {
			ops = append(ops, alts[0])
		} else {
			ops = append(ops, filters.Where().WithOperator(filters.Or).WithOperands(alts))
		}
	}
	where := ops[0]
	if len(ops) > 1 {
		where = and(ops...)
	}
	n, err := c.count(ctx, where)
	if err != nil {
		return 0, fmt.Errorf("%s: count the sections that mention %q: %w", c.s.name, term, err)
	}
	return n, nil
}

// phraseVerifyLimit is how many candidate sections of a synonym phrase
// are read to check that the phrase occurs, as index.Corpus does; beyond
// it every candidate counts.
const phraseVerifyLimit = 256

// withPhrase returns the keys of the current sections matching where
// (the phrase's words) whose title or text has the phrase's words in
// order, exactly as lexicon.Text.HasEntry decides; ok is false when more
// than phraseVerifyLimit sections match, and then none is checked.
func (c corpus) withPhrase(ctx context.Context, where *filters.WhereBuilder, e lexicon.Entry) (keys []string, ok bool, err error) {
	q := fmt.Sprintf(`{Get{%s(limit:%d, %s){%s}}}`, c.s.cfg.Collection, phraseVerifyLimit+1, where.String(), secFields)
	var recs []secRec
	if err := c.s.get(ctx, q, c.s.cfg.Collection, &recs); err != nil {
		return nil, false, err
	}
	if len(recs) > phraseVerifyLimit {
		return nil, false, nil
	}
	if recs, err = c.s.current(ctx, recs); err != nil {
		return nil, false, err
	}
	for _, r := range recs {
		if lexicon.NewText(r.Title + "\n" + r.Content).HasEntry(e) {
			keys = append(keys, r.Key)
		}
	}
	return keys, true, nil
}

// --- helpers ---

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func eq(path, value string) *filters.WhereBuilder {
	return filters.Where().WithPath([]string{path}).WithOperator(filters.Equal).WithValueText(value)
}

func and(ops ...*filters.WhereBuilder) *filters.WhereBuilder {
	return filters.Where().WithOperator(filters.And).WithOperands(ops)
}

// describe shortens the client's errors to their cause (a refused
// connection, a timeout) or Weaviate's message.
func describe(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("Weaviate unreachable: %v", ue.Err)
	}
	return err
}
