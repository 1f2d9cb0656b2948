package openaitest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/textproc"
)

// RouteEmbeddings is the route of POST /v1/embeddings (and /embeddings)
// requests. Without a scripted reply they are answered with HashEmbedding
// vectors; Script and Always can still queue errors (429, 500, …) or a raw
// Body on this route. Respond is not consulted for it.
const RouteEmbeddings = "embeddings"

// DefaultEmbeddingDim is the dimension of the vectors served when neither
// SetEmbeddingDim nor the request's "dimensions" field says otherwise.
const DefaultEmbeddingDim = 64

// SetEmbeddingDim sets the dimension of the vectors the embeddings route
// serves (a request's own "dimensions" field still wins). n ≤ 0 restores
// DefaultEmbeddingDim.
func (s *Server) SetEmbeddingDim(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedDim = n
}

// HashEmbedding is the deterministic embedding the server returns for
// text: each stemmed, stop-worded term of text (textproc.Terms) is hashed
// (FNV-1a) to a dimension and a sign and added there, and the vector is
// scaled to unit length. Texts sharing terms get a high cosine similarity,
// texts sharing none about zero; a text without terms gets the zero vector.
func HashEmbedding(text string, dim int) []float32 {
	if dim <= 0 {
		dim = DefaultEmbeddingDim
	}
	v := make([]float32, dim)
	for _, t := range textproc.Terms(text) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(t))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[int(x%uint64(dim))] += sign
	}
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for i := range v {
			v[i] *= inv
		}
	}
	return v
}

// embeddingRequest is OpenAI's request with the input kept raw: a string
// or an array of strings.
type embeddingRequest struct {
	Input      json.RawMessage `json:"input"`
	Model      string          `json:"model"`
	Dimensions int             `json:"dimensions"`
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "openaitest: reading body: "+err.Error())
		return
	}
	var body embeddingRequest
	if err := json.Unmarshal(raw, &body); err != nil {
		writeError(w, http.StatusBadRequest, "openaitest: decoding embeddings request: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(body.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(body.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, `openaitest: "input" must be a string or an array of strings`)
			return
		}
		inputs = []string{one}
	}
	if body.Model == "" {
		writeError(w, http.StatusBadRequest, `openaitest: "model" is required`)
		return
	}
	req := Request{Route: RouteEmbeddings, Inputs: inputs, Raw: raw, Header: r.Header.Clone()}
	req.Body.Model = body.Model
	reply, _ := s.nextReply(req, false)
	status, done := writeScripted(w, r, reply)
	if done {
		return
	}
	dim := body.Dimensions
	if dim <= 0 {
		s.mu.Lock()
		dim = s.embedDim
		s.mu.Unlock()
	}
	model := reply.Model
	if model == "" {
		model = body.Model
	}
	resp := openai.EmbeddingResponse{Object: "list", Model: openai.EmbeddingModel(model)}
	tokens := 0
	for i, in := range inputs {
		resp.Data = append(resp.Data, openai.Embedding{Object: "embedding", Index: i, Embedding: HashEmbedding(in, dim)})
		tokens += len(strings.Fields(in))
	}
	resp.Usage = openai.Usage{PromptTokens: tokens, TotalTokens: tokens}
	if reply.Usage != nil {
		resp.Usage = *reply.Usage
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(resp); err != nil {
		s.t.Logf("openaitest: writing embeddings reply: %v", err)
	}
}
