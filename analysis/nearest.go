package analysis

import (
	"strings"
)

// Nearest returns the candidate closest to name by edit distance (ignoring
// case), or "" when none is close enough to be a plausible typo: at most
// one edit for short names, a third of the length for longer ones.
func Nearest(name string, candidates []string) string {
	limit := len(name) / 3
	if limit < 1 {
		limit = 1
	}
	best, bestD := "", limit+1
	lower := strings.ToLower(name)
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			continue
		}
		if d := distance(lower, strings.ToLower(c), bestD); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, or a value >= max when
// it is at least max (the computation stops early).
func distance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= max || -d >= max {
		return max
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
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
	return prev[len(rb)]
}
