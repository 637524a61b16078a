package transcript

import "testing"

// Reasoning that follows the turn's last answer must not cost that answer
// its place as the final one: only a real turn boundary flushes it.
func TestEmitterReasoningKeepsTheAnswerPending(t *testing.T) {
	var got []Event
	em := NewEmitter(func(e Event) error { got = append(got, e); return nil })
	for _, ev := range []Event{
		{Kind: EventAssistant, Text: "All green."},
		{Kind: EventReasoning, Text: "that should be everything"},
	} {
		if err := em.Emit(ev); err != nil {
			t.Fatal(err)
		}
	}
	if !em.Pending() {
		t.Fatal("the reasoning flushed the answer held back")
	}
	if err := em.EndTurn(true); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != EventReasoning || got[1].Kind != EventAssistant || !got[1].Final {
		t.Errorf("events: %+v, want the reasoning, then the answer marked final", got)
	}
}
