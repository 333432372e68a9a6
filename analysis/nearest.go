package analysis

import (
	"strings"
	"unicode"

	"github.com/thund-dev/thund/internal/editdist"
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
	var scratch editdist.Scratch
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			continue
		}
		b = lowerRunes(b[:0], c)
		if d := scratch.Runes(a, b, bestD-1); d < bestD {
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
