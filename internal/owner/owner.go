// Package owner names the memctl process that holds something (a job's
// lease in the store, a temporary file in the memory folder) by its host
// and process id, and tells whether that process is gone. What a killed or
// failed process held can then be taken back at once, instead of when its
// lease runs out an hour later.
//
// Judging is conservative: a holder is gone only when it ran on this host,
// in this process-id namespace, and no live process has its pid. Anything
// else (another host, an id this package did not make, a pid now used by
// an unrelated process) counts as alive, and the lease's expiry stays the
// fallback.
package owner

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
)

// prefix starts every id this package makes.
const prefix = "memctl/"

// self is this process as ids name it, worked out once on first use.
var self = sync.OnceValue(func() identity {
	host, _ := os.Hostname()
	return identity{host: host, pid: os.Getpid(), ns: pidNamespace()}
})

type identity struct {
	host string
	pid  int
	// ns is the pid namespace when it is not the host's (a container);
	// "" on the host itself and where there are no namespaces.
	ns string
}

// ID returns a fresh owner id for this process:
// memctl/<host>/<pid>/<random>, with /ns-<n> added inside a container's
// pid namespace, so that a pid is never compared with one of another
// namespace on a host name both share.
func ID() string {
	me := self()
	// Eight random hex digits tell two ids of one process apart; the
	// runtime's generator (seeded by the system) is random enough for that.
	id := fmt.Sprintf("%s%s/%d/%08x", prefix, me.host, me.pid, rand.Uint32())
	if me.ns != "" {
		id += "/ns-" + me.ns
	}
	return id
}

// parse splits an id made by ID; ok is false for anything else.
func parse(id string) (identity, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return identity{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || len(parts) > 4 || parts[0] == "" {
		return identity{}, false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return identity{}, false
	}
	out := identity{host: parts[0], pid: pid}
	if len(parts) == 4 {
		ns, ok := strings.CutPrefix(parts[3], "ns-")
		if !ok || ns == "" {
			return identity{}, false
		}
		out.ns = ns
	}
	return out, true
}

// Gone reports whether the process an ID names has certainly exited (see
// the package comment for what "certainly" takes).
func Gone(id string) bool {
	o, ok := parse(id)
	if !ok {
		return false
	}
	me := self()
	if o.host != me.host || o.ns != me.ns || me.host == "" {
		return false
	}
	if o.pid == me.pid {
		return false
	}
	return !alive(o.pid)
}

// Describe says who an id names, for messages: "process 123 on host h".
// An id this package did not make is returned as it is.
func Describe(id string) string {
	o, ok := parse(id)
	if !ok {
		return id
	}
	return fmt.Sprintf("process %d on %s", o.pid, o.host)
}

// TempTag is what this process puts into the names of its temporary
// files: a short hash of the host (and namespace) and the pid, as
// "<hash>-<pid>".
func TempTag() string {
	me := self()
	return fmt.Sprintf("%s-%d", hostHash(me), me.pid)
}

// TempGone reports whether the writer of a temporary file whose name
// carries tag (as TempTag made it, followed by anything) has certainly
// exited. Names without a tag (older memctl versions) are never judged
// gone; their age decides.
func TempGone(name string) bool {
	hash, rest, ok := strings.Cut(name, "-")
	if !ok {
		return false
	}
	num, _, _ := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(num)
	if err != nil || pid <= 0 {
		return false
	}
	me := self()
	if me.host == "" || hash != hostHash(me) || pid == me.pid {
		return false
	}
	return !alive(pid)
}

func hostHash(me identity) string {
	h := fnv.New32a()
	h.Write([]byte(me.host))
	if me.ns != "" {
		h.Write([]byte{0})
		h.Write([]byte(me.ns))
	}
	return fmt.Sprintf("%08x", h.Sum32())
}
