// Command standin is a loopback stand-in for an OpenAI-compatible model
// server, for benchmarking `memctl extract` without a network or a model:
//
//	go run ./scripts/standin -delay 200ms -url-file /tmp/standin.url &
//	memctl extract --all --provider openai-compatible \
//	    (with provider.base_url = the URL written to /tmp/standin.url)
//
// Every POST to …/chat/completions waits -delay, then answers as
// internal/standin does. It serves until killed.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/memctl/memctl/internal/standin"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	delay := flag.Duration("delay", 200*time.Millisecond, "latency of each answer")
	urlFile := flag.String("url-file", "", "write the base URL (…/v1) here once listening")
	flag.Parse()
	if err := run(*addr, *delay, *urlFile); err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(1)
	}
}

func run(addr string, delay time.Duration, urlFile string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String() + "/v1"
	if urlFile != "" {
		// Write then rename, so a reader polling for the file never sees
		// half a URL.
		if err := os.WriteFile(urlFile+".tmp", []byte(base+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(urlFile+".tmp", urlFile); err != nil {
			return err
		}
	}
	fmt.Fprintln(os.Stderr, "standin: serving", base)
	var calls atomic.Int64
	return http.Serve(ln, standin.Handler(delay, &calls))
}
