// Command loadserve is a load test of docmind serve: N clients ask
// questions over POST /api/v1/ask for a while, then it reports the
// statuses, the errors, the latency percentiles, and the runs lost — the
// answered requests whose run is not in the ledger, done — by reading
// GET /api/v1/runs/{id} for each of them.
//
//	go run ./cmd/docmind serve --docs examples/contract --max-runs 8 --max-queue 64 &
//	go run ./scripts/loadserve -url http://127.0.0.1:8080 -clients 50 -duration 30s
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"
)

// questions alternate between an answered one and one that falls back.
var questions = []string{"What are the late payment penalties?", "What is the warranty period?"}

type result struct {
	status  int
	latency time.Duration
	runID   string
	answer  string
	err     error
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "server base URL")
	clients := flag.Int("clients", 50, "concurrent clients")
	duration := flag.Duration("duration", 30*time.Second, "how long the clients ask")
	token := flag.String("token", "", "bearer token")
	flag.Parse()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients}, Timeout: 5 * time.Minute}
	send := func(method, path string, body []byte) (*http.Response, error) {
		req, err := http.NewRequest(method, *url+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if *token != "" {
			req.Header.Set("Authorization", "Bearer "+*token)
		}
		return client.Do(req)
	}

	var mu sync.Mutex
	var results []result
	deadline := time.Now().Add(*duration)
	var wg sync.WaitGroup
	for c := 0; c < *clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				body, _ := json.Marshal(map[string]string{"question": questions[(c+i)%len(questions)]})
				start := time.Now()
				resp, err := send("POST", "/api/v1/ask", body)
				r := result{err: err}
				if err == nil {
					var out struct {
						FinalOutput string `json:"final_output"`
						Run         struct {
							ID string `json:"id"`
						} `json:"run"`
					}
					b, rerr := io.ReadAll(resp.Body)
					resp.Body.Close()
					r.status, r.err = resp.StatusCode, rerr
					if rerr == nil && resp.StatusCode == 200 {
						r.err = json.Unmarshal(b, &out)
						r.runID, r.answer = out.Run.ID, out.FinalOutput
					}
				}
				r.latency = time.Since(start)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				if r.status == http.StatusTooManyRequests {
					time.Sleep(100 * time.Millisecond) // as Retry-After asks, briefly
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := *duration

	statuses := map[int]int{}
	transport := 0
	var lat []time.Duration
	var ok []result
	for _, r := range results {
		if r.err != nil && r.status == 0 {
			transport++
			continue
		}
		statuses[r.status]++
		if r.status == 200 && r.err == nil {
			ok = append(ok, r)
			lat = append(lat, r.latency)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}

	// Every answered request's run must be in the ledger, done.
	lost, wrong := 0, 0
	for _, r := range ok {
		resp, err := send("GET", "/api/v1/runs/"+r.runID, nil)
		if err != nil {
			lost++
			continue
		}
		var rec struct {
			Run struct {
				Status string `json:"status"`
				Answer string `json:"answer"`
			} `json:"run"`
		}
		err = json.NewDecoder(resp.Body).Decode(&rec)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || rec.Run.Status != "done" {
			lost++
			continue
		}
		if rec.Run.Answer != r.answer {
			wrong++
		}
	}

	fmt.Printf("clients %d, duration %s: %d requests, %.1f answered/s\n", *clients, elapsed, len(results), float64(len(ok))/elapsed.Seconds())
	fmt.Printf("statuses: %v; transport errors: %d\n", statuses, transport)
	fmt.Printf("latency of answered requests: p50 %s, p90 %s, p99 %s, max %s\n",
		pct(0.50).Round(time.Millisecond), pct(0.90).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	fmt.Printf("runs lost (answered but not done in the ledger): %d; ledger answer differs from the response: %d\n", lost, wrong)
	if transport > 0 || lost > 0 || wrong > 0 || statuses[200] == 0 {
		os.Exit(1)
	}
}
