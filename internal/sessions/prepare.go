package sessions

import (
	"encoding/json"
	"runtime"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/sessions/internal/transcript"
	"github.com/memctl/memctl/internal/textcut"
)

// headTail keeps the first left bytes and the last right bytes of a
// stream (plus a few bytes after the head, to find a rune boundary) and
// counts the rest, so a middle cut never needs the whole text.
type headTail struct {
	left, right int
	head        []byte // up to left+utf8.UTFMax bytes
	ring        []byte // bytes at stream offsets >= left, circular
	rpos        int
	total       int
}

func newHeadTail(left, right int) *headTail {
	return &headTail{left: left, right: right, head: make([]byte, 0, min(left+4, 1<<20)), ring: make([]byte, 0, min(right, 1<<20))}
}

func (h *headTail) write(p []byte) {
	if room := h.left + 4 - len(h.head); room > 0 {
		h.head = append(h.head, p[:min(room, len(p))]...)
	}
	if skip := h.left - h.total; skip > 0 {
		if skip >= len(p) {
			h.total += len(p)
			return
		}
		h.total += skip
		p = p[skip:]
	}
	h.total += len(p)
	if h.right == 0 {
		return
	}
	if len(p) >= h.right {
		h.ring = append(h.ring[:0], p[len(p)-h.right:]...)
		h.rpos = 0
		return
	}
	for len(p) > 0 {
		if len(h.ring) < h.right {
			n := min(h.right-len(h.ring), len(p))
			h.ring = append(h.ring, p[:n]...)
			p = p[n:]
			continue
		}
		n := copy(h.ring[h.rpos:], p)
		h.rpos = (h.rpos + n) % h.right
		p = p[n:]
	}
}

func (h *headTail) writeString(s string) { h.write([]byte(s)) }

// tail returns the ring in stream order.
func (h *headTail) tail() []byte {
	if len(h.ring) < h.right {
		return h.ring
	}
	out := make([]byte, 0, len(h.ring))
	out = append(out, h.ring[h.rpos:]...)
	return append(out, h.ring[:h.rpos]...)
}

// truncateTokensStream is truncateTokens applied to the streamed text.
func (h *headTail) truncateTokensStream(limit int) string {
	budget := h.left + h.right
	if h.total <= budget {
		var b strings.Builder
		b.Grow(h.total)
		b.Write(h.head[:min(len(h.head), h.left, h.total)])
		if h.total > h.left {
			b.Write(h.tail())
		}
		return b.String()
	}
	head := string(h.head)
	pre := textcut.PrefixEnd(head, h.left)
	tail := h.tail()
	i := 0
	for i < len(tail) && tail[i]&0xC0 == 0x80 {
		i++
	}
	return head[:pre] + textcut.TokenMarker(h.total-budget) + string(tail[i:])
}

func prepareV1(f File, limit int, redact func(string) string) (string, error) {
	budget := limit * 4
	left := budget / 2
	h := newHeadTail(left, budget-left)
	h.writeString("[")
	n := 0
	write := func(item string) {
		if n > 0 {
			h.writeString(",")
		}
		n++
		h.writeString(item)
	}
	if redact == nil {
		err := walkInputItems(f, func(it *inputItem) error {
			write(string(it.JSON))
			return nil
		})
		if err != nil {
			return "", err
		}
	} else if err := redactInParallel(f, redact, write); err != nil {
		return "", err
	}
	h.writeString("]")
	return h.truncateTokensStream(limit), nil
}

// redactBatchBytes is how much serialised input one redaction batch holds.
const redactBatchBytes = 256 << 10

// redactInParallel walks the items of f, redacts them on every core and
// hands them to write in their original order. Redaction is most of the
// cost of preparing a large transcript, and items are independent (no
// secret spans two items), so the result is exactly the sequential one.
// Memory stays bounded: at most two batches per worker are in flight.
func redactInParallel(f File, redact func(string) string, write func(string)) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	type batch struct {
		items []string
		done  chan struct{}
	}
	jobs := make(chan *batch, workers)
	ordered := make(chan *batch, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				for i, it := range b.items {
					b.items[i] = redact(it)
				}
				close(b.done)
			}
		}()
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for b := range ordered {
			<-b.done
			for _, it := range b.items {
				write(it)
			}
		}
	}()
	cur := &batch{done: make(chan struct{})}
	size := 0
	flush := func() {
		if len(cur.items) == 0 {
			return
		}
		ordered <- cur
		jobs <- cur
		cur, size = &batch{done: make(chan struct{})}, 0
	}
	err := walkInputItems(f, func(it *inputItem) error {
		cur.items = append(cur.items, string(it.JSON))
		size += len(it.JSON)
		if size >= redactBatchBytes {
			flush()
		}
		return nil
	})
	flush()
	close(jobs)
	close(ordered)
	wg.Wait()
	<-writerDone
	return err
}

// v2 constants (bytes), as Codex sizes its tiered evidence.
const (
	v2Omitted        = "[... response items omitted ...]\n"
	v2MarkerReserve  = 96
	v2ToolOutputMax  = 2_000*4 - v2MarkerReserve
	v2RowMax         = 10_000 - v2MarkerReserve
	v2OmittedLen     = len(v2Omitted)
	v2MinRemaining   = v2OmittedLen + v2MarkerReserve
	requestUserInput = "request_user_input"
)

// v2Row builds rows one item at a time, pairing request_user_input calls
// with the human's answers.
type v2Rows struct {
	redact    func(string) string
	questions map[string]string // call id -> arguments
}

func (r *v2Rows) row(it *inputItem) (tier, string) {
	t := it.Tier
	text := ""
	switch it.Type {
	case "function_call":
		if it.Name == requestUserInput && (it.NS == "" || it.NS == "functions") && it.CallID != "" {
			var args string
			_ = json.Unmarshal(fieldBytes(it.JSON, "arguments"), &args)
			r.questions[it.CallID] = args
		}
	case "function_call_output":
		if q, ok := r.questions[it.CallID]; ok {
			delete(r.questions, it.CallID)
			if answered(transcript.ToolOutputText(fieldBytes(it.JSON, "output"))) {
				t = tierHuman
				text = "Assistant question: " + q + "\nHuman reply: " + string(it.JSON)
			}
		}
	}
	if text == "" {
		text = string(it.JSON)
	}
	text = r.redact(text)
	if t == tierTool && (it.Type == "function_call_output" || it.Type == "custom_tool_call_output" || it.Type == "tool_search_output") {
		text = textcut.Middle(text, v2ToolOutputMax)
	}
	text = textcut.Middle(text, v2RowMax)
	return t, "[" + transcript.TierLabels[t] + "]\n" + text + "\n"
}

func fieldBytes(b []byte, key string) []byte { return transcript.Field(b, key) }

// answered reports a request_user_input response with a non-blank answer.
func answered(out string) bool {
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	var nonBlank func(any) bool
	nonBlank = func(x any) bool {
		switch x := x.(type) {
		case string:
			return strings.TrimSpace(x) != ""
		case []any:
			for _, e := range x {
				if nonBlank(e) {
					return true
				}
			}
		case map[string]any:
			for _, e := range x {
				if nonBlank(e) {
					return true
				}
			}
		}
		return false
	}
	a, ok := m["answers"]
	return ok && nonBlank(a)
}

func prepareV2(f File, limit int, redact func(string) string) (string, error) {
	// Pass 1: the tier and length of every row (8 bytes per item).
	type rowInfo struct {
		t   tier
		n   int32
		sel int32 // bytes kept; -1 = omitted
	}
	var rows []rowInfo
	r := &v2Rows{redact: redact, questions: map[string]string{}}
	if err := walkInputItems(f, func(it *inputItem) error {
		t, s := r.row(it)
		rows = append(rows, rowInfo{t: t, n: int32(len(s)), sel: -1})
		return nil
	}); err != nil {
		return "", err
	}
	remaining := limit*4 - v2OmittedLen
	for t := tierHuman; t < numTiers; t++ {
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i].t != t || remaining <= v2MinRemaining {
				continue
			}
			budget := remaining - v2OmittedLen
			take := int(rows[i].n)
			if take > budget {
				take = budget - v2MarkerReserve
			}
			rows[i].sel = int32(take)
			remaining -= take + v2OmittedLen
		}
	}
	// Pass 2: render the chosen rows in source order.
	var b strings.Builder
	r = &v2Rows{redact: redact, questions: map[string]string{}}
	i := 0
	gap := false
	if err := walkInputItems(f, func(it *inputItem) error {
		if i >= len(rows) {
			return nil // the file grew between the passes
		}
		ri := rows[i]
		i++
		_, s := r.row(it)
		if ri.sel < 0 {
			gap = true
			return nil
		}
		if gap {
			b.WriteString(v2Omitted)
			gap = false
		}
		if int(ri.sel) < len(s) {
			s = textcut.Middle(s, int(ri.sel))
		}
		b.WriteString(s)
		return nil
	}); err != nil {
		return "", err
	}
	if gap {
		b.WriteString(v2Omitted)
	}
	if b.Len() > limit*4 {
		return "", nil
	}
	return b.String(), nil
}
