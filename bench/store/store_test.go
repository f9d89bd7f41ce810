package main

import (
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
