package analysis

import (
	"strings"
	"unicode"
)

// Nearest returns the candidate closest to name by edit distance (ignoring
// case), or "" when none is close enough to be a plausible typo: at most
// one edit for short names, a third of the length for longer ones.
//
// It runs on every unknown reference of every edit, against every dataset
// name, so it allocates its buffers once and skips candidates whose length
// alone rules them out.
func Nearest(name string, candidates []string) string {
	limit := len(name) / 3
	if limit < 1 {
		limit = 1
	}
	best, bestD := "", limit+1
	a := lowerRunes(nil, name)
	var b []rune
	var prev, cur, prev2 []int
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			continue
		}
		b = lowerRunes(b[:0], c)
		if d := len(a) - len(b); d >= bestD || -d >= bestD {
			continue
		}
		if cap(prev) < len(b)+1 {
			prev, cur, prev2 = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
		}
		if d := distance(a, b, bestD, prev[:len(b)+1], cur[:len(b)+1], prev2[:len(b)+1]); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// lowerRunes appends s, lower-cased, to buf as runes.
func lowerRunes(buf []rune, s string) []rune {
	for _, r := range s {
		buf = append(buf, unicode.ToLower(r))
	}
	return buf
}

// distance is the edit distance of a and b counting a swap of two
// neighbours as one edit (bsae for base; optimal string alignment), or a
// value >= max when it is at least max (the computation stops early).
// prev, cur and prev2 are scratch rows of len(b)+1.
func distance(a, b []rune, max int, prev, cur, prev2 []int) int {
	if d := len(a) - len(b); d >= max || -d >= max {
		return max
	}
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
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
		// A swap reaches back two rows, so both must be past max.
		if rowMin >= max && prevMin >= max {
			return max
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
