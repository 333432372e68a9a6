package sqlfront

import "strings"

// Spark SQL that neither PostgreSQL nor DuckDB reads is common in SDP
// pipelines: window(ts, '10 minutes'), LEFT ANTI JOIN, RLIKE, LATERAL VIEW,
// WATERMARK ... DELAY OF, DISTRIBUTE BY, 100L. When both parsers reject a
// query, sparkTolerant rewrites such constructs, byte for byte the same
// length, into something they read with the same table references, and the
// query is parsed again. The rewrite is only for analysis: Query.Normalized
// keeps them.

// clauseEnders end a blanked clause at its parenthesis depth.
var clauseEnders = map[string]bool{
	"WHERE": true, "GROUP": true, "HAVING": true, "QUALIFY": true, "WINDOW": true, "ORDER": true,
	"LIMIT": true, "OFFSET": true, "FETCH": true, "UNION": true, "INTERSECT": true, "EXCEPT": true,
	"MINUS": true, "SORT": true, "DISTRIBUTE": true, "CLUSTER": true, "LATERAL": true, "JOIN": true,
	"INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true, "NATURAL": true,
	"ANTI": true, "SEMI": true, "SELECT": true, "FROM": true, "PIVOT": true, "UNPIVOT": true,
	"WATERMARK": true, "ON": true, "USING": true,
}

// intervalUnits are the words of an interval's value.
var intervalUnits = map[string]bool{}

func init() {
	for _, u := range strings.Fields("YEAR MONTH WEEK DAY HOUR MINUTE SECOND MILLISECOND MICROSECOND") {
		intervalUnits[u] = true
		intervalUnits[u+"S"] = true
	}
}

// sparkTolerant returns input (the query text[sp], normalized and
// sanitized) with Spark-only constructs rewritten, and whether it changed
// anything. toks are the query's tokens (file offsets).
func sparkTolerant(text, input string, sp Span, toks []token) (string, bool) {
	b := []byte(input)
	changed := false
	at := func(off int) int { return off - sp.Start }
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != tkWord {
			return ""
		}
		return strings.ToUpper(text[toks[k].start:toks[k].end])
	}
	isP := func(k int, c byte) bool {
		return k >= 0 && k < len(toks) && toks[k].kind == tkPunct && text[toks[k].start] == c
	}
	put := func(off int, s string) {
		copy(b[at(off):], s)
		changed = true
	}
	blankToks := func(from, to int) { // tokens [from, to), and what lies between them
		if from >= to {
			return
		}
		for i := at(toks[from].start); i < at(toks[to-1].end); i++ {
			b[i] = ' '
		}
		changed = true
	}
	// clauseEnd returns the index of the first token from k on that ends
	// a clause at the depth of k: an ender word, or a ')' closing it.
	clauseEnd := func(k int, commaEnds bool) int {
		depth := 0
		for ; k < len(toks); k++ {
			switch {
			case isP(k, '('):
				depth++
			case isP(k, ')'):
				if depth == 0 {
					return k
				}
				depth--
			case depth == 0 && (clauseEnders[word(k)] || commaEnds && isP(k, ',')):
				return k
			}
		}
		return k
	}
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		w := word(k)
		switch {
		case t.kind == tkNumber:
			// 100L, 1.5D, 10BD, 3S, 2Y, 1.0F: drop Spark's type suffix.
			s := text[t.start:t.end]
			j := len(s)
			for j > 0 && strings.IndexByte("LSYDFBlsydfb", s[j-1]) >= 0 {
				j--
			}
			if j < len(s) && j > 0 && isDigit(s[j-1]) && !strings.ContainsAny(s[:j], "eExX") {
				put(t.start+j, strings.Repeat(" ", len(s)-j))
			}
		case w == "LEFT" && (word(k+1) == "SEMI" || word(k+1) == "ANTI") && word(k+2) == "JOIN":
			blankToks(k, k+1) // DuckDB reads SEMI JOIN and ANTI JOIN
		case (w == "RLIKE" || w == "REGEXP") && !isP(k+1, '('):
			put(t.start, strings.Repeat(" ", len(w)-4)+"LIKE")
		case w == "DIV" && !isP(k+1, '('):
			put(t.start, "  /")
		case (w == "WINDOW" || w == "ARRAY") && isP(k+1, '(') && word(k+2) != "SELECT" && word(k+2) != "WITH" && word(k+2) != "VALUES":
			put(t.start, "_") // window(ts, '5 minutes') -> _indow(...): a plain function
		case w == "STRUCT" && isP(k+1, '('):
			// struct(a AS x, b AS y): drop the field aliases.
			depth := 0
			for j := k + 1; j < len(toks); j++ {
				if isP(j, '(') {
					depth++
				} else if isP(j, ')') {
					depth--
					if depth == 0 {
						break
					}
				} else if depth == 1 && word(j) == "AS" && j+1 < len(toks) && (toks[j+1].kind == tkWord || toks[j+1].kind == tkQuoted) {
					blankToks(j, j+2)
				}
			}
		case w == "LATERAL" && word(k+1) == "VIEW":
			// LATERAL VIEW [OUTER] explode(a) t AS x, y: a generator over
			// columns already read; drop it.
			j := k + 2
			if word(j) == "OUTER" {
				j++
			}
			e := clauseEnd(j, false)
			blankToks(k, e)
			k = e - 1
		case w == "WATERMARK" && k > 0:
			// WATERMARK col DELAY OF INTERVAL 10 MINUTES
			j := k + 1
			for j < len(toks) && word(j) != "DELAY" && !isP(j, ')') && !clauseEnders[word(j)] {
				j++
			}
			if word(j) != "DELAY" || word(j+1) != "OF" {
				continue
			}
			j += 2
			if word(j) == "INTERVAL" {
				j++
			}
			for j < len(toks) && (toks[j].kind == tkNumber || toks[j].kind == tkString || intervalUnits[word(j)]) {
				j++
			}
			blankToks(k, j)
			k = j - 1
		case (w == "DISTRIBUTE" || w == "SORT" || w == "CLUSTER") && word(k+1) == "BY":
			e := clauseEnd(k+2, false)
			blankToks(k, e)
			k = e - 1
		}
	}
	return string(b), changed
}
