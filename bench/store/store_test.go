package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The projects have the issue's proportions: 100,000 issues come with
// 5,000 merge requests and 500 pipelines, 1,000 with 50 and 5.
func TestSizeOf(t *testing.T) {
	for _, c := range []struct{ issues, mrs, pipelines int }{{100000, 5000, 500}, {1000, 50, 5}, {100, 5, 1}} {
		if s := sizeOf(c.issues, 5); s.mrs != c.mrs || s.pipelines != c.pipelines || s.notes != 5 {
			t.Errorf("sizeOf(%d) = %+v, want %d merge requests, %d pipelines", c.issues, s, c.mrs, c.pipelines)
		}
	}
}

// The median is the middle of the sorted times, and the quantiles of the
// concurrent run are read from its sorted latencies.
func TestMedianAndQuantile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var d []time.Duration
		for _, v := range n {
			d = append(d, time.Duration(v)*time.Millisecond)
		}
		return d
	}
	if got := median(ms(9, 1, 5, 3, 7)); got != 5*time.Millisecond {
		t.Errorf("median = %v", got)
	}
	if median(nil) != 0 {
		t.Error("median of nothing is not 0")
	}
	c := concurrent{latencies: ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}
	if c.quantile(0.5) != 6*time.Millisecond || c.quantile(0.99) != 10*time.Millisecond {
		t.Errorf("p50 %v, p99 %v", c.quantile(0.5), c.quantile(0.99))
	}
	r := row{small: 2 * time.Millisecond, large: 3 * time.Millisecond}
	if r.ratio() != 1.5 || r.verdict() != "1.5× PASS" {
		t.Errorf("ratio %v, verdict %q", r.ratio(), r.verdict())
	}
	// One error answer fails the row whatever the times.
	r.calls, r.fails, r.failure = 12, 1, "bench/large: HTTP 503"
	if v := r.verdict(); v != "FAIL: 1 of 12 calls answered bench/large: HTTP 503" {
		t.Errorf("verdict with a failed call = %q", v)
	}
}

// Ensure a rare term's row is refused when the projects answer different
// matches (1 against 111 compared a one-row page with a full one and its
// count), and reports its matches when they agree.
func TestMeasure_sameMatches(t *testing.T) {
	for _, c := range []struct{ small, large int }{{1, 1}, {1, 3}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Params struct {
					Arguments map[string]any `json:"arguments"`
				} `json:"params"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			n := map[any]int{smallPath: c.small, largePath: c.large}[req.Params.Arguments["project_id"]]
			items := make([]any, n)
			for k := range items {
				items[k] = map[string]any{"iid": k + 1}
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1,
				"result": map[string]any{"structuredContent": map[string]any{"items": items}}})
		}))
		cl := &client{addr: strings.TrimPrefix(srv.URL, "http://"), token: "t"}
		r := measure(cl, work{name: "search x (rare)", tool: "search", args: search("issues", "x"), items: "items", same: true}, 2)
		srv.Close()
		if c.small == c.large {
			if r.err != nil || r.matches != c.small {
				t.Errorf("%+v: err %v, matches %d", c, r.err, r.matches)
			}
		} else if r.err == nil || !strings.Contains(r.err.Error(), "not the same answer: 1 items on bench/small, 3 on bench/large") {
			t.Errorf("%+v: err %v, want not the same answer", c, r.err)
		}
	}
}
