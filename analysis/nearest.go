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
	var prev, cur []int
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			continue
		}
		b = lowerRunes(b[:0], c)
		if d := len(a) - len(b); d >= bestD || -d >= bestD {
			continue
		}
		if cap(prev) < len(b)+1 {
			prev, cur = make([]int, len(b)+1), make([]int, len(b)+1)
		}
		if d := distance(a, b, bestD, prev[:len(b)+1], cur[:len(b)+1]); d < bestD {
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

// distance is the Levenshtein distance of a and b, or a value >= max when
// it is at least max (the computation stops early). prev and cur are
// scratch rows of len(b)+1.
func distance(a, b []rune, max int, prev, cur []int) int {
	if d := len(a) - len(b); d >= max || -d >= max {
		return max
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= max {
			return max
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
