package project

import (
	"path"
	"strings"
)

// globSegments splits a library pattern into path segments, dropping empty
// and "." segments and merging runs of "**".
func globSegments(pat string) []string {
	pat = path.Clean(strings.TrimSpace(pat))
	var segs []string
	for _, s := range strings.Split(pat, "/") {
		if s == "" || s == "." {
			continue
		}
		if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue
		}
		segs = append(segs, s)
	}
	return segs
}

// matchGlob reports whether the slash-separated relative file path name
// matches the library pattern pat. `*`, `?` and `[...]` match within one
// segment; a `**` segment matches any number of folders, and a final `**`
// matches every file below the folder before it (at any depth).
func matchGlob(pat, name string) bool {
	return matchSegments(globSegments(pat), strings.Split(name, "/"))
}

// matchSegments matches pattern segments against path segments. It fills a
// table from the ends backwards so that several `**` never backtrack
// exponentially: row i holds whether pat[i:] matches names[j:] for each j.
func matchSegments(pat, names []string) bool {
	n, m := len(pat), len(names)
	next := make([]bool, m+1)
	next[m] = true
	for i := n - 1; i >= 0; i-- {
		cur := make([]bool, m+1)
		for j := m; j >= 0; j-- {
			switch {
			case pat[i] == "**" && i == n-1:
				cur[j] = j < m
			case pat[i] == "**":
				cur[j] = next[j] || (j < m && cur[j+1])
			default:
				cur[j] = j < m && next[j+1] && matchSegment(pat[i], names[j])
			}
		}
		next = cur
	}
	return next[0]
}

// matchSegment matches one file or folder name against a pattern segment
// with `*` (any run of characters), `?` (one character) and `[...]`
// classes (`[!...]` negates; a `[` without its `]` is a plain character).
func matchSegment(pat, name string) bool {
	p, s := []rune(pat), []rune(name)
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				starP, starS = pi, si
				pi++
				continue
			case '?':
				pi++
				si++
				continue
			case '[':
				if ok, width, valid := matchClass(p[pi:], s[si]); valid {
					if ok {
						pi += width
						si++
						continue
					}
				} else if s[si] == '[' {
					pi++
					si++
					continue
				}
			default:
				if p[pi] == s[si] {
					pi++
					si++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last `*` take one more character and retry.
		starS++
		si = starS
		pi = starP + 1
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchClass matches c against the class opening p (p[0] is '['). It
// returns whether c matches, the class's width in runes, and false for
// valid when the class is not closed.
func matchClass(p []rune, c rune) (ok bool, width int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && p[i] == '!' {
		negate = true
		i++
	}
	first := true
	for ; i < len(p); i++ {
		if p[i] == ']' && !first {
			return ok != negate, i + 1, true
		}
		first = false
		lo := p[i]
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			if lo <= c && c <= p[i+2] {
				ok = true
			}
			i += 2
			continue
		}
		if lo == c {
			ok = true
		}
	}
	return false, 0, false
}
