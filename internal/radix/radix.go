// Package radix sorts small lists by a 16-bit key in linear time. The
// read path builds its lookup tables (the redactor's scanner, the
// quarantine's keyword index) in every process that prints a summary, and
// a comparison sort moved each of their few hundred entries many times.
package radix

// SortStable returns s ordered by key, entries of one key in the order
// they had: two counting passes, the low byte then the high. The result
// is s or a second list of its length; s itself is not to be used after.
func SortStable[T any](s []T, key func(T) uint16) []T {
	tmp := make([]T, len(s))
	for _, shift := range []uint{0, 8} {
		var at [257]int
		for _, e := range s {
			at[byte(key(e)>>shift)+1]++
		}
		for i := 1; i < len(at); i++ {
			at[i] += at[i-1]
		}
		for _, e := range s {
			b := byte(key(e) >> shift)
			tmp[at[b]] = e
			at[b]++
		}
		s, tmp = tmp, s
	}
	return s
}
