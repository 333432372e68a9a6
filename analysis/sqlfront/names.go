package sqlfront

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// unquoteIdent removes the quotes of a "double" or `backtick` quoted
// identifier, undoing doubled quotes inside; a bare word is returned as is.
func unquoteIdent(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		q := s[:1]
		return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
	}
	return s
}

// unescapeString returns the value of a terminated string literal ('...',
// "..." or $tag$...$tag$) as Spark reads it: a doubled quote is a quote,
// and a backslash escapes the next character (\n, \t, \r, \b, \0, \Z and
// \uXXXX are control characters or code points; \% and \_ stay as written
// since they are LIKE escapes).
func unescapeString(s string) string {
	if strings.HasPrefix(s, "$") {
		if te := dollarTag(s, 0, len(s)); te > 0 && len(s) >= 2*te && strings.HasSuffix(s, s[:te]) {
			return s[te : len(s)-te]
		}
		return s
	}
	if len(s) < 2 || s[len(s)-1] != s[0] {
		return s
	}
	q := s[0]
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == q && i+1 < len(body) && body[i+1] == q:
			b.WriteByte(q)
			i++
		case c == '\\' && i+1 < len(body):
			i++
			switch e := body[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case '0':
				b.WriteByte(0)
			case 'Z':
				b.WriteByte(26)
			case '%', '_':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'u':
				if i+4 < len(body) {
					if n, err := strconv.ParseUint(body[i+1:i+5], 16, 32); err == nil {
						b.WriteRune(rune(n))
						i += 4
						continue
					}
				}
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// scanIdentPart reads one identifier part (a word or a quoted identifier)
// at text[i:limit] and returns its end and unquoted text.
func scanIdentPart(text string, i, limit int) (int, string, bool) {
	if i >= limit {
		return i, "", false
	}
	c := text[i]
	switch {
	case c == '"' || c == '`':
		end, ok := scanQuoted(text, i, limit, c, false)
		if !ok {
			return i, "", false
		}
		return end, unquoteIdent(text[i:end]), true
	case isWordStart(c):
		j := i + 1
		for j < limit && isWordByte(text[j]) {
			j++
		}
		return j, text[i:j], true
	}
	return i, "", false
}

// scanName reads a possibly qualified name (parts joined by dots, with
// optional spaces around them) at text[i:limit]. It returns the unquoted
// dotted name and the end of the name as written.
func scanName(text string, i, limit int) (string, int, bool) {
	end, part, ok := scanIdentPart(text, i, limit)
	if !ok {
		return "", i, false
	}
	parts := []string{part}
	for {
		j := end
		for j < limit && isSpace(text[j]) {
			j++
		}
		if j >= limit || text[j] != '.' {
			break
		}
		j++
		for j < limit && isSpace(text[j]) {
			j++
		}
		e, part, ok := scanIdentPart(text, j, limit)
		if !ok {
			break
		}
		parts = append(parts, part)
		end = e
	}
	return strings.Join(parts, "."), end, true
}

// charToByte converts a 0-based character offset into s, counted as the
// PostgreSQL scanner counts UTF-8 characters, into a byte offset.
func charToByte(s string, chars int) int {
	i := 0
	for n := 0; n < chars && i < len(s); n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// aggregateFuncs are the function names (lower case) counted as
// aggregates when called without OVER: the common aggregates of Spark SQL,
// PostgreSQL and DuckDB.
var aggregateFuncs = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`
		count count_star count_if countif sum avg mean min max
		collect_list collect_set array_agg list string_agg listagg group_concat
		any_value first last first_value last_value arbitrary
		approx_count_distinct approx_percentile percentile percentile_approx
		percentile_cont percentile_disc median mode quantile quantile_cont
		quantile_disc approx_quantile approx_top_k
		stddev stddev_pop stddev_samp std variance var_pop var_samp
		corr covar_pop covar_samp regr_avgx regr_avgy regr_count regr_intercept
		regr_r2 regr_slope regr_sxx regr_sxy regr_syy
		bool_and bool_or every bit_and bit_or bit_xor
		max_by min_by arg_max arg_min argmax argmin
		kurtosis kurtosis_pop skewness histogram histogram_numeric product entropy
		fsum favg sumkahan kahan_sum try_sum try_avg
		json_agg jsonb_agg json_object_agg jsonb_object_agg
		json_group_array json_group_object xmlagg
		hll_sketch_agg hll_union_agg bitmap_construct_agg bitmap_or_agg
		count_min_sketch`) {
		aggregateFuncs[n] = true
	}
}
