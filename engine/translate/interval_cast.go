package translate

import (
	"regexp"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// intervalTextForm matches the literal form of an interval in a string,
// as Spark's castStringToYMInterval and castStringToDTInterval read it:
// INTERVAL [+-]'value' fields.
var intervalTextForm = regexp.MustCompile(`(?is)^INTERVAL\s+([+-]?)'([^']*)'\s+([A-Z]+(?:\s+TO\s+[A-Z]+)?)$`)

// castStringInterval translates a cast of a string constant to an ANSI
// interval type: the text is the interval's value in the form of the
// type's fields ('3-1' for YEAR TO MONTH, '3 00:00:01' for DAY TO SECOND)
// or that value in the literal form (INTERVAL '3-1' YEAR TO MONTH, with
// the same fields), read as the INTERVAL literal of those fields is.
// ok is false for a cast it does not translate: a string that is not a
// constant, or a text in another form (Spark reads a few more, or
// fails), which the caller refuses.
func (t *tr) castStringInterval(c *ast.Cast, to *Type) (frag, bool) {
	l, ok := c.X.(*ast.Literal)
	if !ok || l.Kind != ast.LitString || !to.ansiInterval() {
		return frag{}, false
	}
	text := javaTrim(l.Str.Value)
	negative := false
	fields := strings.ToUpper(fieldNames[to.Start])
	if to.End != to.Start {
		fields += " TO " + strings.ToUpper(fieldNames[to.End])
	}
	if m := intervalTextForm.FindStringSubmatch(text); m != nil {
		if strings.Join(strings.Fields(strings.ToUpper(m[3])), " ") != fields {
			return frag{}, false
		}
		text, negative = m[2], m[1] == "-"
	} else if strings.ContainsAny(text, "'") {
		return frag{}, false
	}
	lit := &ast.Literal{Range: l.Range, Kind: ast.LitString, Str: &ast.StringLit{Range: l.Range, Value: text}}
	iv := &ast.Interval{Range: c.Range, Units: []*ast.IntervalUnit{{Range: c.Range, Value: lit, Negative: negative, Unit: strings.ToUpper(fieldNames[to.Start])}}}
	if to.End != to.Start {
		iv.To = strings.ToUpper(fieldNames[to.End])
	}
	// A text the literal's reading does not take leaves a finding at the
	// cast: the caller's refusal then names the cast.
	before := len(t.res.Findings)
	f := t.intervalLiteral(iv)
	if len(t.res.Findings) > before {
		t.res.Findings = t.res.Findings[:before]
		return frag{}, false
	}
	if !f.typ.ansiInterval() || f.typ.Start != to.Start || f.typ.End != to.End {
		return frag{}, false
	}
	return at(c, to, f), true
}
