package translate

import "strconv"

// roundDoubleText rounds a DOUBLE as Spark's round and bround do (fn:
// "round" for HALF_UP, "round_even" for HALF_EVEN): on the decimal the
// double's text writes (Scala's BigDecimal of a Double goes through
// Double.toString), so round(0.285D, 2) is 0.29 and bround(1.015D, 2)
// 1.02 where rounding the binary value gives 0.28 and 1.01 (checked on
// Spark 4.1.4). DuckDB writes a double's shortest text, which is Java's
// for all but rare values. NaN, the infinities and a value of 10^16 or
// more (every such double is an integer) stay as they are; ok is false
// for a scale past what DECIMAL(38, 22) holds, which the caller rounds
// as before.
func roundDoubleText(fn string, x frag, d int) (frag, bool) {
	if d < 0 || d > 21 {
		return frag{}, false
	}
	s := max(20, d+1)
	dec := cat("CAST(CAST(", x, " AS VARCHAR) AS DECIMAL(38,"+strconv.Itoa(s)+"))")
	r := cat(fn+"(", dec, ", "+strconv.Itoa(d)+")")
	return cat("CASE WHEN isnan(", x, ") OR isinf(", x, ") OR abs(", x, ") >= 1e16 THEN ", x, " ELSE CAST(", r, " AS DOUBLE) END"), true
}
