package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/humantime"
)

// progressDelay is how long a stage runs before its progress line
// appears: a quick stage prints nothing, a slow one never leaves the
// terminal blank. Tests shorten it.
var progressDelay = time.Second

// progressTick is how often the line is rewritten.
const progressTick = 250 * time.Millisecond

// progress is one stage's progress line on stderr ("extracting v1: 1/3
// threads, 12s"), shown when the stage has run for progressDelay, rewritten
// in place and erased when the stage ends. It is inert unless stderr is a
// terminal and neither --quiet nor --json is given. The elapsed time is
// real time, not the injected clock: a pinned MEMCTL_NOW must not freeze
// what the user watches.
type progress struct {
	w     io.Writer
	label string
	unit  string // "threads"; "" when the stage has no count

	mu          sync.Mutex
	done, total int
	shown       bool

	start time.Time
	stop  chan struct{}
	ended chan struct{}
}

// startProgress starts the progress line of a stage named label; unit
// names what set counts.
func startProgress(ios *IOStreams, json bool, label, unit string) *progress {
	p := &progress{w: ios.ErrOut, label: label, unit: unit}
	if !ios.StderrTTY || ios.Quiet || json {
		return p
	}
	p.start, p.stop, p.ended = time.Now(), make(chan struct{}), make(chan struct{})
	go p.loop()
	return p
}

// set records how far the stage is: done of total.
func (p *progress) set(done, total int) {
	p.mu.Lock()
	p.done, p.total = done, total
	p.mu.Unlock()
}

// finish erases the line, if it was shown, and stops updating it.
func (p *progress) finish() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	<-p.ended
	p.stop = nil
}

func (p *progress) loop() {
	defer close(p.ended)
	select {
	case <-p.stop:
		return
	case <-time.After(progressDelay):
	}
	tick := time.NewTicker(progressTick)
	defer tick.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			p.mu.Lock()
			if p.shown {
				fmt.Fprint(p.w, "\r\x1b[K")
			}
			p.mu.Unlock()
			return
		case <-tick.C:
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := p.label
	if p.unit != "" && p.total > 0 {
		line += fmt.Sprintf(": %d/%d %s", p.done, p.total, p.unit)
	}
	line += ", " + humantime.Duration(time.Since(p.start))
	fmt.Fprint(p.w, "\r"+line+"\x1b[K")
	p.shown = true
}
