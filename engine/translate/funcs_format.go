package translate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// format_string (printf) runs Java's java.util.Formatter (Locale.US) over
// Spark's internal values of its arguments: a string is its text, an
// integer a Java Integer or Long, a double a Double, a decimal Spark's
// Decimal (not a BigDecimal), a date its day number. The translation
// reads the constant pattern as Formatter does and writes each piece in
// SQL; what it cannot write exactly is refused.

// javaSpec is one piece of a Java format pattern: fixed text (conv 0) or
// a format specifier.
type javaSpec struct {
	text string // the fixed text, or the specifier as written
	// index is the argument: 0 the next ordinary one, -1 the previous
	// one ('<'), n > 0 the n-th.
	index        int
	flags        string
	width, prec  int // -1 when not given
	conv         byte
	upper        bool
	dateTimeConv bool
}

func (s javaSpec) has(flag byte) bool { return strings.IndexByte(s.flags, flag) >= 0 }

// javaFlags are the flag characters of a format specifier;
// javaConversions its conversions (besides %t and %T).
const (
	javaFlags       = "-#+ 0,(<"
	javaConversions = "bBhHsScCdoxXeEfgGaA%n"
)

// parseJavaFormat splits a pattern into fixed text and specifiers as
// java.util.Formatter's parse does (its FORMAT_SPECIFIER_PATTERN,
// %[index$][flags][width][.precision]conversion), or says which
// exception Java raises.
func parseJavaFormat(p string) ([]javaSpec, error) {
	var out []javaSpec
	i := 0
	for i < len(p) {
		n := strings.IndexByte(p[i:], '%')
		if n < 0 {
			out = append(out, javaSpec{text: p[i:]})
			break
		}
		if n > 0 {
			out = append(out, javaSpec{text: p[i : i+n]})
		}
		start := i + n
		spec, end, err := parseJavaSpec(p, start)
		if err != nil {
			return nil, err
		}
		out = append(out, spec)
		i = end
	}
	return out, nil
}

// parseJavaSpec reads the specifier at p[start] ('%').
func parseJavaSpec(p string, start int) (javaSpec, int, error) {
	s := javaSpec{width: -1, prec: -1}
	j := start + 1
	if j >= len(p) {
		return s, 0, fmt.Errorf("UnknownFormatConversionException: Conversion = '%%'")
	}
	digits := func(k int) int {
		for k < len(p) && p[k] >= '0' && p[k] <= '9' {
			k++
		}
		return k
	}
	// An argument index: digits and '$' (else the digits are flags and
	// width, as the regular expression backtracks).
	if k := digits(j); k > j && k < len(p) && p[k] == '$' {
		n, err := strconv.Atoi(p[j:k])
		if err != nil || n <= 0 {
			return s, 0, fmt.Errorf("IllegalFormatArgumentIndexException: Illegal format argument index = %s", p[j:k])
		}
		s.index = n
		j = k + 1
	}
	f := j
	for j < len(p) && strings.IndexByte(javaFlags, p[j]) >= 0 {
		j++
	}
	s.flags = p[f:j]
	for k := 0; k < len(s.flags); k++ {
		if strings.IndexByte(s.flags[k+1:], s.flags[k]) >= 0 {
			return s, 0, fmt.Errorf("DuplicateFormatFlagsException: Flags = '%c'", s.flags[k])
		}
	}
	if s.has('<') {
		s.index = -1
	}
	if k := digits(j); k > j {
		w, err := strconv.Atoi(p[j:k])
		if err != nil {
			return s, 0, fmt.Errorf("IllegalFormatWidthException")
		}
		s.width = w
		j = k
	}
	if j < len(p) && p[j] == '.' {
		k := digits(j + 1)
		if k == j+1 {
			return s, 0, fmt.Errorf("UnknownFormatConversionException: Conversion = '.'")
		}
		n, err := strconv.Atoi(p[j+1 : k])
		if err != nil {
			return s, 0, fmt.Errorf("IllegalFormatPrecisionException")
		}
		s.prec = n
		j = k
	}
	if j < len(p) && (p[j] == 't' || p[j] == 'T') {
		s.dateTimeConv = true
		s.upper = p[j] == 'T'
		j++
	}
	if j >= len(p) || !(p[j] == '%' || p[j] >= 'a' && p[j] <= 'z' || p[j] >= 'A' && p[j] <= 'Z') {
		c := "%"
		if j < len(p) {
			c = p[j : j+1]
		}
		return s, 0, fmt.Errorf("UnknownFormatConversionException: Conversion = '%s'", c)
	}
	c := p[j]
	if !s.dateTimeConv && strings.IndexByte(javaConversions, c) < 0 {
		return s, 0, fmt.Errorf("UnknownFormatConversionException: Conversion = '%c'", c)
	}
	if !s.dateTimeConv && c >= 'A' && c <= 'Z' {
		s.upper = true
		c += 'a' - 'A'
	}
	s.conv = c
	s.text = p[start : j+1]
	return s, j + 1, nil
}

// check raises what Formatter's constructor of a specifier raises for
// bad flags and widths (its checkGeneral, checkInteger, checkText).
func (s javaSpec) check() error {
	if s.dateTimeConv {
		return nil
	}
	bad := func(flags string) error {
		for _, f := range flags {
			if s.has(byte(f)) {
				return fmt.Errorf("FormatFlagsConversionMismatchException: Conversion = %c, Flags = %c", s.conv, f)
			}
		}
		return nil
	}
	missingWidth := fmt.Errorf("MissingFormatWidthException: %s", s.text)
	switch s.conv {
	case 's', 'b', 'h':
		if s.conv != 's' && s.has('#') {
			return bad("#")
		}
		if s.width < 0 && s.has('-') {
			return missingWidth
		}
		return bad("+ 0,(")
	case 'd', 'o', 'x':
		if s.prec >= 0 {
			return fmt.Errorf("IllegalFormatPrecisionException: %d", s.prec)
		}
		if s.width < 0 && (s.has('-') || s.has('0')) {
			return missingWidth
		}
		if s.has('+') && s.has(' ') || s.has('-') && s.has('0') {
			return fmt.Errorf("IllegalFormatFlagsException: Flags = '%s'", s.flags)
		}
		if s.conv == 'd' {
			return bad("#")
		}
		return bad(",")
	case 'c':
		if s.prec >= 0 {
			return fmt.Errorf("IllegalFormatPrecisionException: %d", s.prec)
		}
		if s.width < 0 && s.has('-') {
			return missingWidth
		}
		return bad("#+ 0,(")
	case 'f':
		if s.width < 0 && (s.has('-') || s.has('0')) {
			return missingWidth
		}
		if s.has('+') && s.has(' ') || s.has('-') && s.has('0') {
			return fmt.Errorf("IllegalFormatFlagsException: Flags = '%s'", s.flags)
		}
	case '%', 'n':
		if s.prec >= 0 {
			return fmt.Errorf("IllegalFormatPrecisionException: %d", s.prec)
		}
		if s.conv == 'n' && s.width >= 0 {
			return fmt.Errorf("IllegalFormatWidthException: %d", s.width)
		}
		if s.conv == 'n' && s.flags != "" || s.conv == '%' && strings.Trim(s.flags, "-") != "" {
			return fmt.Errorf("IllegalFormatFlagsException: Flags = '%s'", s.flags)
		}
		if s.conv == '%' && s.width < 0 && s.has('-') {
			return missingWidth
		}
	}
	return nil
}

// formatStringFn translates format_string(fmt, args...) and printf.
func formatStringFn(t *tr, c *ast.Call, a []frag) frag {
	name := strings.ToLower(c.Name.String())
	if len(a) == 0 {
		t.refuse(c, "%s takes a format and its arguments", name)
		return null(c)
	}
	l, ok := unparenExpr(c.Args[0]).(*ast.Literal)
	if ok && l.Kind == ast.LitNull {
		return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
	}
	if !ok || l.Kind != ast.LitString {
		t.refuse(c.Args[0], "the format of %s runs natively as a string literal only", name)
		return null(c)
	}
	pattern := l.Str.Value
	if strings.Contains(pattern, "%0$") {
		t.typeError(c, "INVALID_PARAMETER_VALUE.ZERO_INDEX", "The value of parameter(s) `strfmt` in `%s` is invalid: expects `%%1$`, `%%2$` and so on, but got `%%0$`. SQLSTATE: 22023", name)
		return null(c)
	}
	specs, err := parseJavaFormat(pattern)
	if err != nil {
		t.refuse(c.Args[0], "Spark fails on this format (Java's %s); the native engine does not reproduce its error", err)
		return null(c)
	}
	args := a[1:]
	var parts []frag
	last, ordinary := -1, -1
	for _, s := range specs {
		if s.conv == 0 {
			parts = append(parts, cat(quoteString(s.text)))
			continue
		}
		if err := s.check(); err != nil {
			t.refuse(c.Args[0], "Spark fails on %s in this format (Java's %s); the native engine does not reproduce its error", s.text, err)
			return null(c)
		}
		if s.conv == '%' || s.conv == 'n' {
			lit := "%"
			if s.conv == 'n' {
				lit = "\n"
			}
			parts = append(parts, javaJustify(s, cat(quoteString(lit))))
			continue
		}
		switch s.index {
		case -1:
		case 0:
			ordinary++
			last = ordinary
		default:
			last = s.index - 1
		}
		if last < 0 || last >= len(args) {
			// Java's MissingFormatArgumentException, raised when a row
			// is formatted.
			msg := "Format specifier '" + javaSpecText(s) + "' of " + name + " has no argument (java.util.MissingFormatArgumentException)" + markOpen + strconv.Itoa(t.check(c)) + markClose
			parts = append(parts, cat("CAST(error("+quoteString(msg)+") AS VARCHAR)"))
			continue
		}
		x := c.Args[last+1]
		piece, why := t.javaConvert(s, args[last], x)
		if why != "" {
			t.refuse(x, "%s of %s does not run natively: %s", s.text, t.text(x), why)
			return null(c)
		}
		parts = append(parts, piece)
	}
	if len(parts) == 0 {
		return at(c, tString, cat("''"))
	}
	return at(c, tString, cat("(", join(parts, " || "), ")"))
}

// javaSpecText is the specifier as Java's FormatSpecifier.toString writes
// it in an exception: %, flags, index$, width, .precision, conversion.
func javaSpecText(s javaSpec) string {
	var b strings.Builder
	b.WriteByte('%')
	b.WriteString(strings.ReplaceAll(s.flags, "<", ""))
	if s.has('<') {
		b.WriteByte('<')
	}
	if s.index > 0 {
		b.WriteString(strconv.Itoa(s.index) + "$")
	}
	if s.width >= 0 {
		b.WriteString(strconv.Itoa(s.width))
	}
	if s.prec >= 0 {
		b.WriteString("." + strconv.Itoa(s.prec))
	}
	c := s.conv
	if s.upper {
		c -= 'a' - 'A'
	}
	b.WriteByte(c)
	return b.String()
}

// javaConvert writes one argument (x, translated from arg) as the
// specifier s formats it, or says why it does not run natively.
func (t *tr) javaConvert(s javaSpec, x frag, arg ast.Expr) (frag, string) {
	if s.dateTimeConv {
		return frag{}, "Java's date and time conversions (%t) format Spark's internal numbers of a date or timestamp"
	}
	switch s.conv {
	case 's':
		if s.has('#') {
			return frag{}, "Spark fails on the # flag of %s (FormatFlagsConversionMismatchException)"
		}
		v, why := t.javaText(x)
		if why != "" {
			return frag{}, why
		}
		return t.javaGeneral(s, v, x.typ.is(String)), ""
	case 'b':
		var v frag
		switch {
		case x.typ.is(Boolean):
			v = cat("coalesce(CAST(", x, " AS VARCHAR), 'false')")
		case x.typ.is(Null):
			v = cat("'false'")
		case x.typ.known():
			v = cat("CASE WHEN ", x, " IS NULL THEN 'false' ELSE 'true' END")
		default:
			return frag{}, "the type of the argument is not known here"
		}
		return t.javaGeneral(s, v, false), ""
	case 'd', 'x', 'o':
		return t.javaInteger(s, x)
	case 'f':
		return t.javaFixed(s, x, arg)
	case 'c':
		return t.javaChar(s, x)
	}
	return frag{}, "Thund translates the conversions %s, %S, %b, %c, %d, %x, %X, %o, %f, %% and %n only"
}

// javaText is the text Java's String.valueOf gives of Spark's internal
// value of x ('null' for NULL), for the types whose text is certain.
func (t *tr) javaText(x frag) (frag, string) {
	switch ty := x.typ; {
	case ty.is(Null):
		return cat("'null'"), ""
	case ty.is(String):
		return cat("coalesce(", x, ", 'null')"), ""
	case ty.integral(), ty.is(Boolean):
		return cat("coalesce(CAST(", x, " AS VARCHAR), 'null')"), ""
	case ty.is(Double):
		return cat("coalesce(thund_double_text(", x, "), 'null')"), ""
	case ty.is(Decimal) && ty.S <= 6:
		// Spark's Decimal.toString is BigDecimal's, plain while the
		// scale is at most 6 (then 1E-7 for 0.0000001).
		return cat("coalesce(CAST(", x, " AS VARCHAR), 'null')"), ""
	case !ty.known():
		return frag{}, "the type of the argument is not known here"
	}
	return frag{}, fmt.Sprintf("Java writes Spark's internal value of a %s, which the native engine does not reproduce", x.typ)
}

// javaGeneral applies precision (characters kept), upper case and width
// to the text v of a general conversion (%s, %b), as Formatter's
// print(String) does. Lengths count UTF-16 units, as Java's do: a text
// with a character outside the Basic Multilingual Plane fails as not
// portable where precision cuts it, and %S of a non-ASCII text too (Java's
// upper case of ß is SS).
func (t *tr) javaGeneral(s javaSpec, v frag, text bool) frag {
	if s.prec >= 0 {
		p := strconv.Itoa(s.prec)
		v = cat("list_transform([", v, "], lambda s: CASE WHEN length(s) > "+p+" AND regexp_matches(s, '[\\x{10000}-\\x{10FFFF}]') THEN error('not-portable: the precision of "+strings.ReplaceAll(s.text, "'", "''")+" cuts a text holding a character Java counts as two') ELSE left(s, "+p+") END)[1]")
	}
	if s.upper {
		if text {
			v = cat("list_transform([", v, "], lambda s: CASE WHEN regexp_matches(s, '[^\\x00-\\x7F]') THEN error('not-portable: "+strings.ReplaceAll(s.text, "'", "''")+" of a text beyond ASCII: Java''s upper case differs') ELSE upper(s) END)[1]")
		} else {
			v = cat("upper(", v, ")")
		}
	}
	return javaJustify(s, v)
}

// javaJustify pads v with spaces to the specifier's width, on the left
// or, with '-', on the right (Formatter's appendJustified).
func javaJustify(s javaSpec, v frag) frag {
	if s.width < 0 {
		return v
	}
	w := strconv.Itoa(s.width)
	pad := "repeat(' ', greatest(" + w + " - (length(s) + length(regexp_replace(s, '[^\\x{10000}-\\x{10FFFF}]', '', 'g'))), 0))"
	if s.has('-') {
		return cat("list_transform([", v, "], lambda s: s || "+pad+")[1]")
	}
	return cat("list_transform([", v, "], lambda s: "+pad+" || s)[1]")
}

// javaInteger writes an integer argument for %d, %x and %o as
// Formatter's print(long) does: a Byte, Short or Integer negative in hex
// or octal is its two's complement in its own width, a Long in 64 bits;
// NULL is 'null' (justified only).
func (t *tr) javaInteger(s javaSpec, x frag) (frag, string) {
	ty := x.typ
	if ty.is(Null) {
		return javaJustify(s, t.upperIf(s, cat("'null'"))), ""
	}
	if !ty.integral() {
		if !ty.known() {
			return frag{}, "the type of the argument is not known here"
		}
		return frag{}, fmt.Sprintf("Spark fails on it (IllegalFormatConversionException: %c != %s)", s.conv, javaClass(ty))
	}
	var body string
	switch s.conv {
	case 'd':
		body = javaDecimalDigits(s)
	default:
		if s.has('+') || s.has(' ') || s.has('(') {
			return frag{}, fmt.Sprintf("Spark fails on the flags + ( and space of %%%c (FormatFlagsConversionMismatchException)", s.conv)
		}
		body = javaRadixDigits(s, ty)
	}
	out := cat("list_transform([CAST(", x, " AS BIGINT)], lambda v: CASE WHEN v IS NULL THEN 'null' ELSE "+body+" END)[1]")
	return javaJustify(s, t.upperIf(s, out)), ""
}

// upperIf upper-cases v for an upper-case conversion (%X, %S).
func (t *tr) upperIf(s javaSpec, v frag) frag {
	if s.upper {
		return cat("upper(", v, ")")
	}
	return v
}

// javaClass is the Java class of Spark's internal value of a type, as an
// exception names it.
func javaClass(ty *Type) string {
	switch {
	case ty.is(String):
		return "org.apache.spark.unsafe.types.UTF8String"
	case ty.is(Decimal):
		return "org.apache.spark.sql.types.Decimal"
	case ty.is(Double):
		return "java.lang.Double"
	case ty.is(Float):
		return "java.lang.Float"
	case ty.is(Boolean):
		return "java.lang.Boolean"
	case ty.is(Date):
		return "java.lang.Integer"
	case ty.is(Timestamp), ty.is(TimestampNTZ):
		return "java.lang.Long"
	}
	return ty.String()
}

// zeroPad is the SQL of the text digits with zeros before it up to n
// characters (digits is written twice: it must be cheap).
func zeroPad(digits string, n int) string {
	return "repeat('0', greatest(" + strconv.Itoa(n) + " - length(" + digits + "), 0)) || " + digits
}

// javaDecimalDigits is the SQL (over the BIGINT v, not NULL) of %d: the
// sign ('+' or ' ' before a positive number with those flags, '(' and
// ')' around a negative one with '('), the digits grouped by threes with
// ',', and with '0' zeros after the sign up to the width (Formatter's
// leadingSign, localizedMagnitude and trailingSign).
func javaDecimalDigits(s javaSpec) string {
	pos := ""
	switch {
	case s.has('+'):
		pos = "+"
	case s.has(' '):
		pos = " "
	}
	neg, tail := "-", ""
	if s.has('(') {
		neg, tail = "(", ")"
	}
	digits := "ltrim(CAST(v AS VARCHAR), '-')"
	if s.has(',') {
		digits = "ltrim(format('{:,}', v), '-')"
	}
	negDigits, posDigits := digits, digits
	if s.has('0') && s.width >= 0 {
		negDigits = zeroPad(digits, s.width-len(neg)-len(tail))
		posDigits = zeroPad(digits, s.width-len(pos))
	}
	return "CASE WHEN v < 0 THEN " + quoteString(neg) + " || " + negDigits + " || " + quoteString(tail) + " ELSE " + quoteString(pos) + " || " + posDigits + " END"
}

// javaRadixDigits is the SQL (over the BIGINT v, not NULL) of %x or %o:
// a negative Byte, Short or Integer taken as unsigned in its own width (a
// Long in 64 bits), '#' adding 0x or 0, '0' zeros after it up to the
// width (Long.toHexString, Long.toOctalString).
func javaRadixDigits(s javaSpec, ty *Type) string {
	bits := map[Kind]int{TinyInt: 8, SmallInt: 16, Int: 32, BigInt: 64}[ty.Kind]
	wrap := "18446744073709551616"
	if bits < 64 {
		wrap = strconv.FormatInt(int64(1)<<bits, 10)
	}
	u := "CAST(CASE WHEN v < 0 THEN CAST(v AS HUGEINT) + " + wrap + " ELSE v END AS UBIGINT)"
	digits, prefix := "lower(hex("+u+"))", ""
	if s.has('#') {
		prefix = "0x"
	}
	if s.conv == 'o' {
		digits, prefix = "thund_octal("+u+")", ""
		if s.has('#') {
			prefix = "0"
		}
	}
	if s.has('0') && s.width >= 0 {
		digits = zeroPad(digits, s.width-len(prefix))
	}
	if prefix != "" {
		digits = quoteString(prefix) + " || " + digits
	}
	return "(" + digits + ")"
}

// javaFixed writes a DOUBLE (or FLOAT, which Formatter widens) for %f as
// Formatter does: the shortest decimal digits of the double (Java's
// Double.toString digits; DuckDB writes the same shortest digits) rounded
// HALF_UP to the precision (6 by default), the sign from the double's
// sign bit (-0.0 is "-0.000000"), ',' grouping, the sign flags and '0'
// padding as for %d; NaN and Infinity as Java spells them. A magnitude
// of 10^30 or more fails as not portable.
func (t *tr) javaFixed(s javaSpec, x frag, arg ast.Expr) (frag, string) {
	switch ty := x.typ; {
	case ty.is(Null):
		return javaJustify(s, t.upperIf(s, cat("'null'"))), ""
	case ty.is(Double), ty.is(Float):
	case !ty.known():
		return frag{}, "the type of the argument is not known here"
	default:
		return frag{}, fmt.Sprintf("Spark fails on it (IllegalFormatConversionException: f != %s)", javaClass(ty))
	}
	if s.has('#') {
		return frag{}, "the # flag of %f is not translated"
	}
	prec := 6
	if s.prec >= 0 {
		prec = s.prec
	}
	if prec > 15 {
		return frag{}, "a precision past 15 digits is not translated"
	}
	p := strconv.Itoa(prec)
	mag := "CAST(CAST(CAST(abs(v) AS VARCHAR) AS DECIMAL(38, " + p + ")) AS VARCHAR)"
	if s.has(',') {
		mag = "format('{:,}', CAST(CAST(abs(v) AS VARCHAR) AS DECIMAL(38, " + p + ")))"
	}
	pos := ""
	switch {
	case s.has('+'):
		pos = "+"
	case s.has(' '):
		pos = " "
	}
	neg, tail := "-", ""
	if s.has('(') {
		neg, tail = "(", ")"
	}
	negDigits, posDigits := mag, mag
	if s.has('0') && s.width >= 0 {
		negDigits = zeroPad(mag, s.width-len(neg)-len(tail))
		posDigits = zeroPad(mag, s.width-len(pos))
	}
	tooBig := "error('not-portable: " + strings.ReplaceAll(s.text, "'", "''") + " of a number of 10^30 or more is not translated" + markOpen + strconv.Itoa(t.check(arg)) + markClose + "')"
	num := "CASE WHEN isnan(v) THEN 'NaN' WHEN isinf(v) THEN CASE WHEN v < 0 THEN " + quoteString(neg+"Infinity"+tail) + " ELSE " + quoteString(pos+"Infinity") + " END" +
		" WHEN abs(v) >= 1e30 THEN " + tooBig +
		" WHEN signbit(v) THEN " + quoteString(neg) + " || " + negDigits + " || " + quoteString(tail) +
		" ELSE " + quoteString(pos) + " || " + posDigits + " END"
	out := cat("list_transform([CAST(", x, " AS DOUBLE)], lambda v: CASE WHEN v IS NULL THEN 'null' ELSE "+num+" END)[1]")
	return javaJustify(s, t.upperIf(s, out)), ""
}

// javaChar writes an integer argument for %c: the character of that code
// point (chr), NULL as 'null'.
func (t *tr) javaChar(s javaSpec, x frag) (frag, string) {
	switch ty := x.typ; {
	case ty.is(Null):
		return javaJustify(s, t.upperIf(s, cat("'null'"))), ""
	case ty.is(TinyInt), ty.is(SmallInt), ty.is(Int):
	case !ty.known():
		return frag{}, "the type of the argument is not known here"
	default:
		return frag{}, fmt.Sprintf("Spark fails on it (IllegalFormatConversionException: c != %s)", javaClass(ty))
	}
	out := cat("coalesce(chr(CAST(", x, " AS INTEGER)), 'null')")
	if s.upper {
		out = cat("list_transform([", out, "], lambda s: CASE WHEN regexp_matches(s, '[^\\x00-\\x7F]') THEN error('not-portable: %C of a character beyond ASCII: Java''s upper case differs') ELSE upper(s) END)[1]")
	}
	return javaJustify(s, out), ""
}
