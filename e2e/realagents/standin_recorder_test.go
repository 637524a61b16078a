package realagents

import (
	"net"
	"net/http"
	"strings"
	"sync"
)

// Request is one HTTP request a stand-in received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         string
}

// recorder keeps every request a stand-in sees, so a test can check what
// the CLI sent (the injected summary, the tool list) after the fact.
type recorder struct {
	mu     sync.Mutex
	reqs   []Request
	finals map[string]int
}

// noteFinal counts the final answers given to each prompt, so a driver
// knows when a turn's model work is over.
func (r *recorder) noteFinal(prompt string, act Action) {
	if act.Tool != "" {
		return
	}
	r.mu.Lock()
	if r.finals == nil {
		r.finals = map[string]int{}
	}
	r.finals[prompt]++
	r.mu.Unlock()
}

// Finals is how many final answers prompt received.
func (r *recorder) Finals(prompt string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finals[prompt]
}

func (r *recorder) add(q Request) {
	r.mu.Lock()
	r.reqs = append(r.reqs, q)
	r.mu.Unlock()
}

// Requests returns a copy of what was received so far.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// Reset forgets what was received.
func (r *recorder) Reset() {
	r.mu.Lock()
	r.reqs = nil
	r.mu.Unlock()
}

// Matching returns the requests whose body contains s.
func (r *recorder) Matching(s string) []Request {
	var out []Request
	for _, q := range r.Requests() {
		if strings.Contains(q.Body, s) {
			out = append(out, q)
		}
	}
	return out
}

// listenLoopback listens on 127.0.0.1 only: the stand-ins never take
// traffic from elsewhere, and the CLIs are pointed only at them.
func listenLoopback() (net.Listener, error) {
	return net.Listen("tcp", "127.0.0.1:0")
}
