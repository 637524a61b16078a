package transcript

// Emitter holds back the latest assistant message so it can be marked
// Final once the turn is seen to end (task_complete for Codex, the next
// human message or the end of file for Claude Code).
type Emitter struct {
	fn      func(Event) error
	pending *Event
	err     error
}

// NewEmitter returns an emitter that hands events to fn.
func NewEmitter(fn func(Event) error) *Emitter { return &Emitter{fn: fn} }

// Pending reports an assistant message held back.
func (e *Emitter) Pending() bool { return e.pending != nil }

func (e *Emitter) Emit(ev Event) error {
	if e.err != nil {
		return e.err
	}
	if ev.Kind == EventReasoning {
		// Reasoning is no turn boundary: the answer held back may still be
		// the turn's final one.
		e.err = e.fn(ev)
		return e.err
	}
	if e.pending != nil {
		p := *e.pending
		e.pending = nil
		if e.err = e.fn(p); e.err != nil {
			return e.err
		}
	}
	if ev.Kind == EventAssistant && !ev.Final {
		e.pending = &ev
		return nil
	}
	e.err = e.fn(ev)
	return e.err
}

// EndTurn flushes the held-back assistant message, marked final.
func (e *Emitter) EndTurn(final bool) error {
	if e.err != nil || e.pending == nil {
		return e.err
	}
	p := *e.pending
	e.pending = nil
	p.Final = p.Final || final
	e.err = e.fn(p)
	return e.err
}
