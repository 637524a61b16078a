// Command interleave times commands one run of each in turn, so that a
// change of load on a shared machine moves every command alike, and
// prints each one's median wall time and the median over the rounds of
// its ratio to the first command of the same round:
//
//	go run ./scripts/interleave -rounds 500 "cat summary.md" "memctl-summary --agent claude-code"
//
// hyperfine runs all of one command's runs before the next command's, so
// load that changes within a run moves the ratio between them (see
// docs/benchmarks.md, row 1). Every command gets no stdin and its output
// is discarded; ten rounds warm up first.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 300, "rounds to time, each running every command once")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) == 0 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: interleave [-rounds N] COMMAND...")
		os.Exit(2)
	}
	ms := make([][]float64, len(cmds))
	for r := -10; r < *rounds; r++ {
		for i, c := range cmds {
			d, err := run(c)
			if err != nil {
				fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", c, err)
				os.Exit(1)
			}
			if r >= 0 {
				ms[i] = append(ms[i], d)
			}
		}
	}
	for i, c := range cmds {
		ratios := make([]float64, *rounds)
		for r := range ratios {
			ratios[r] = ms[i][r] / ms[0][r]
		}
		fmt.Printf("%8.3f ms  %5.2f× the first  %s\n", median(ms[i]), median(ratios), c)
	}
}

// run runs c (split at spaces) without stdin or output and returns its
// wall time in milliseconds.
func run(c string) (float64, error) {
	f := strings.Fields(c)
	cmd := exec.Command(f[0], f[1:]...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	return float64(time.Since(start).Microseconds()) / 1000, nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
