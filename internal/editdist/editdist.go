// Package editdist measures how many edits apart two words are, for the
// "did you mean" suggestions of every diagnostic: an unknown column,
// table or function, a misspelt pragma, spec key or parameter.
//
// One edit is an insertion, a deletion, a substitution, or a swap of two
// neighbouring characters (bsae for base), the optimal-string-alignment
// distance. Characters are runes, compared exactly: callers that ignore
// case lower both words first.
package editdist

// Unbounded, as a limit, asks for the exact distance however large.
const Unbounded = -1

// Distance is the edit distance of a and b, or limit+1 when it is more
// than limit (limit Unbounded: the exact distance).
func Distance(a, b string, limit int) int {
	var s Scratch
	return s.Runes([]rune(a), []rune(b), limit)
}

// Scratch holds the rows one computation needs, so that a caller
// comparing one word with many candidates allocates them once. The zero
// value is ready to use; a Scratch is not safe for concurrent use.
type Scratch struct {
	rows [3][]int
}

// Runes is Distance over rune slices, reusing s's rows.
func (s *Scratch) Runes(a, b []rune, limit int) int {
	if limit >= 0 {
		if d := len(a) - len(b); d > limit || -d > limit {
			return limit + 1
		}
	}
	n := len(b) + 1
	for i := range s.rows {
		if cap(s.rows[i]) < n {
			s.rows[i] = make([]int, n)
		}
	}
	prev2, prev, cur := s.rows[0][:n], s.rows[1][:n], s.rows[2][:n]
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		// A swap reaches back two rows: stop once both are past limit.
		if limit >= 0 && rowMin > limit && prevMin > limit {
			return limit + 1
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(b)]; limit < 0 || d <= limit {
		return d
	}
	return limit + 1
}
