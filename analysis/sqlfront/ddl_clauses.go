package sqlfront

import (
	"fmt"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/ir"
)

// Databricks' clauses of CREATE MATERIALIZED VIEW and CREATE STREAMING
// TABLE beyond SDP's grammar, from Databricks' SQL reference ("CREATE
// MATERIALIZED VIEW (pipelines)", "CREATE STREAMING TABLE (pipelines)",
// "CREATE STREAMING TABLE" of Databricks SQL for SCHEDULE, "ROW FILTER
// clause", "Column mask clause"):
//
//	WITH ROW FILTER func ON (col | literal [, ...])
//	SCHEDULE [REFRESH] { EVERY n {HOUR|HOURS|DAY|DAYS|WEEK|WEEKS} | CRON 'cron' [AT TIME ZONE 'tz'] }
//	TRIGGER ON UPDATE [AT MOST EVERY INTERVAL ...]
//	FLOW INSERT [ONCE] BY NAME query, FLOW REPLACE WHERE predicate BY NAME query   (streaming tables)
//	REFRESH POLICY { AUTO | INCREMENTAL [STRICT] | FULL }   (materialized views)
//	col type ... MASK func [USING COLUMNS (col | literal [, ...])]   (in the column list)
//
// Each is read, recorded as a construct (capab's matrix says who refuses
// it) and changes nothing natively.

// databricksClause reads the clause at token i of a CREATE's options and
// returns the token after it; ok is false when no such clause starts
// there, and next is -1 when one does but is malformed (reported).
func (p *stmtParser) databricksClause(i int) (next int, ok bool) {
	start := p.toks[i].start
	switch {
	case p.kw(i, "WITH") && p.kw(i+1, "ROW") && p.kw(i+2, "FILTER"):
		k := i + 3
		_, _, after, named := p.dottedName(k)
		if !named || !p.kw(after, "ON") || !p.punct(after+1, '(') {
			p.errTok(k, fmt.Sprintf("WITH ROW FILTER needs a function and its columns, found %s: write WITH ROW FILTER func ON (col, ...)", p.tokDesc(k)))
			return -1, true
		}
		c := p.closeParen(after + 1)
		if c < 0 {
			p.errTok(after+1, "unclosed WITH ROW FILTER column list: add the missing ')'")
			return -1, true
		}
		p.syntax(capab.SynRowFilter, start, p.toks[c].end)
		p.blankWhole(start, p.toks[c].end)
		return c + 1, true
	case p.kw(i, "SCHEDULE"):
		k := i + 1
		if p.kw(k, "REFRESH") {
			k++
		}
		switch {
		case p.kw(k, "EVERY") && k+2 < len(p.toks) && p.toks[k+1].kind == tkNumber &&
			p.kw(k+2, "HOUR", "HOURS", "DAY", "DAYS", "WEEK", "WEEKS"):
			k += 3
		case p.kw(k, "CRON") && k+1 < len(p.toks) && (p.toks[k+1].kind == tkString || p.sparkString(k+1)):
			k += 2
			if p.kw(k, "AT") && p.kw(k+1, "TIME") && p.kw(k+2, "ZONE") && k+3 < len(p.toks) {
				k += 4
			}
		default:
			p.errTok(k, fmt.Sprintf("SCHEDULE needs EVERY n HOURS|DAYS|WEEKS or CRON 'expression', found %s", p.tokDesc(k)))
			return -1, true
		}
		p.syntax(capab.SynSchedule, start, p.toks[k-1].end)
		p.blankWhole(start, p.toks[k-1].end)
		return k, true
	case p.kw(i, "TRIGGER") && p.kw(i+1, "ON") && p.kw(i+2, "UPDATE"):
		k := i + 3
		if p.kw(k, "AT") && p.kw(k+1, "MOST") && p.kw(k+2, "EVERY") {
			k += 3
			if p.kw(k, "INTERVAL") {
				k++
			}
			for k < len(p.toks) && !p.kw(k, "AS") && !p.kw(k, "COMMENT", "TBLPROPERTIES", "PARTITIONED", "CLUSTER", "WITH", "SCHEDULE") {
				k++
			}
		}
		p.syntax(capab.SynSchedule, start, p.toks[k-1].end)
		p.blankWhole(start, p.toks[k-1].end)
		return k, true
	case p.kw(i, "REFRESH") && p.kw(i+1, "POLICY"):
		k := i + 2
		switch {
		case p.kw(k, "INCREMENTAL") && p.kw(k+1, "STRICT"):
			k += 2
		case p.kw(k, "AUTO", "INCREMENTAL", "FULL"):
			k++
		default:
			p.errTok(k, fmt.Sprintf("REFRESH POLICY needs AUTO, INCREMENTAL, INCREMENTAL STRICT or FULL, found %s", p.tokDesc(k)))
			return -1, true
		}
		p.syntax(capab.SynRefreshPolicy, start, p.toks[k-1].end)
		p.blankWhole(start, p.toks[k-1].end)
		return k, true
	}
	return i, false
}

// masks records the MASK clauses of the column list between tokens open
// and close (its parentheses): MASK func [USING COLUMNS (...)] at the
// list's top level.
func (p *stmtParser) masks(open, close int) {
	depth := 0
	for k := open + 1; k < close; k++ {
		switch {
		case p.punct(k, '('):
			depth++
		case p.punct(k, ')'):
			depth--
		case depth == 0 && p.kw(k, "MASK"):
			_, _, after, ok := p.dottedName(k + 1)
			if !ok {
				continue
			}
			end := after
			if p.kw(after, "USING") && p.kw(after+1, "COLUMNS") && p.punct(after+2, '(') {
				if c := p.closeParen(after + 2); c > 0 && c < close {
					end = c + 1
				}
			}
			p.syntax(capab.SynColumnMask, p.toks[k].start, p.toks[end-1].end)
			p.blankWhole(p.toks[k].start, p.toks[end-1].end)
			k = end - 1
		}
	}
	p.constraintOptions(open, close)
}

// blankWhole blanks [start, end) of the text parseWhole reads, so that
// Spark's grammar reads the rest of a statement holding a clause it has
// not (a MASK, a ROW FILTER).
func (p *stmtParser) blankWhole(start, end int) {
	if p.wholeText == nil {
		p.wholeText = []byte(p.text)
	}
	for i := start; i < end; i++ {
		if p.wholeText[i] != '\n' && p.wholeText[i] != '\r' {
			p.wholeText[i] = ' '
		}
	}
	p.whole = nil
}

// flowInsert reads Databricks' FLOW INSERT [ONCE] BY NAME query of CREATE
// STREAMING TABLE, at token i (FLOW): the table's own flow, whose query
// is read like AS's.
func (p *stmtParser) flowInsert(i int) {
	k := i + 2
	if p.kw(k, "ONCE") {
		p.syntax(capab.SynOnce, p.toks[k].start, p.toks[k].end)
		p.st.Once = true
		k++
	}
	if !p.kw(k, "BY") || !p.kw(k+1, "NAME") {
		p.errTok(k, fmt.Sprintf("FLOW INSERT needs BY NAME before its query, found %s: write FLOW INSERT BY NAME SELECT ...", p.tokDesc(k)))
		return
	}
	p.syntax(capab.SynFlowInsert, p.toks[i].start, p.toks[k+1].end)
	p.st.ByName = true
	if k+2 >= len(p.toks) || !startsQuery(p.text, p.toks[k+2:]) {
		p.errTok(k+2, fmt.Sprintf("expected a query after FLOW INSERT BY NAME, found %s", p.tokDesc(k+2)))
		return
	}
	p.query(k + 1)
}

// flowReplaceWhere reads Databricks' FLOW REPLACE WHERE predicate BY
// NAME query of CREATE STREAMING TABLE, at token i (FLOW): the table's
// own flow, which on each update replaces the table's rows matching the
// predicate with the query's. The predicate is read as a Spark
// expression, the query like AS's; the flow is recorded as a construct
// (capab.SynFlowReplaceWhere).
func (p *stmtParser) flowReplaceWhere(i int) {
	where := i + 2
	by := p.byNameAfter(where + 1)
	if by < 0 {
		p.errTok(where+1, "FLOW REPLACE WHERE needs a predicate and BY NAME before its query: write FLOW REPLACE WHERE day = current_date() BY NAME SELECT ...")
		return
	}
	if by == where+1 {
		p.errTok(by, fmt.Sprintf("FLOW REPLACE WHERE needs a predicate before BY NAME, found %s: write FLOW REPLACE WHERE day = current_date() BY NAME SELECT ...", p.tokDesc(by)))
		return
	}
	p.syntax(capab.SynFlowReplaceWhere, p.toks[i].start, p.toks[by+1].end)
	p.st.ByName = true
	if !p.predicateOK(p.toks[where+1].start, p.toks[by-1].end) {
		return
	}
	if by+2 >= len(p.toks) || !startsQuery(p.text, p.toks[by+2:]) {
		p.errTok(by+2, fmt.Sprintf("expected a query after FLOW REPLACE WHERE ... BY NAME, found %s", p.tokDesc(by+2)))
		return
	}
	p.query(by + 1)
}

// byNameAfter returns the token of the first BY NAME from token k on
// outside parentheses, -1 when there is none.
func (p *stmtParser) byNameAfter(k int) int {
	depth := 0
	for ; k+1 < len(p.toks); k++ {
		switch {
		case p.punct(k, '('):
			depth++
		case p.punct(k, ')'):
			depth--
		case depth == 0 && p.kw(k, "BY") && p.kw(k+1, "NAME"):
			return k
		}
	}
	return -1
}

// predicateOK reads text[start:end] as one Spark expression and reports
// Spark's syntax error in it, at its place, when it is not one.
func (p *stmtParser) predicateOK(start, end int) bool {
	_, errs := parser.ParseExpression(p.text[start:end], p.databricksOptions())
	if len(errs) == 0 {
		return true
	}
	e := *errs[0]
	e.Start, e.End = e.Start+start, e.End+start
	p.sparkErr(&e, " (in the REPLACE WHERE predicate)")
	return false
}

// snapshotCDC reads Databricks' CDC from snapshots, APPLY CHANGES INTO t
// FROM SNAPSHOT s ... or CREATE FLOW f AS AUTO CDC INTO t FROM SNAPSHOT s
// ..., whose leading keywords start at token lead: a flow into t reading
// s, recorded as a construct (capab.SynSnapshotCDC: Databricks only; the
// native engine does not apply snapshots). It reports whether the
// statement is one.
func (p *stmtParser) snapshotCDC(lead int) bool {
	from, into := -1, -1
	for k := lead; k+1 < len(p.toks); k++ {
		if into < 0 && p.kw(k, "INTO") {
			into = k
		}
		if p.kw(k, "FROM") && p.kw(k+1, "SNAPSHOT") {
			from = k
			break
		}
	}
	if from < 0 || into < 0 {
		return false
	}
	p.syntax(capab.SynSnapshotCDC, p.toks[from].start, p.toks[from+1].end)
	name, sp, _, ok := p.dottedName(into + 1)
	if !ok {
		p.errTok(into+1, fmt.Sprintf("expected the target table after INTO, found %s", p.tokDesc(into+1)))
		return true
	}
	p.st.Target, p.st.TargetLoc = name, sp
	p.liveTarget()
	if p.st.Kind == ApplyChanges {
		p.st.Name, p.st.NameLoc = p.st.Target, p.st.TargetLoc
	}
	_, src, _, ok := p.dottedName(from + 2)
	if !ok {
		p.errTok(from+2, fmt.Sprintf("expected the snapshot's table after FROM SNAPSHOT, found %s", p.tokDesc(from+2)))
		return true
	}
	// The flow reads the snapshot table: SELECT * FROM s, written over
	// the statement's own text (same length).
	start := p.toks[lead].start
	const sel = "SELECT *"
	if p.toks[from].start-start < len(sel)+1 {
		return true
	}
	b := []byte(p.text)
	for i := start; i < p.toks[from].start; i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	copy(b[start:], sel)
	for i := p.toks[from+1].start; i < p.toks[from+1].end; i++ {
		b[i] = ' '
	}
	text := string(b)
	qs := Span{start, src.End}
	q, d := parseQuery(p.file, text, qs, lexRange(text, qs.Start, qs.End), p.dialect, p.vars)
	p.st.Query = q
	p.diags = append(p.diags, d...)
	return true
}

// Expectations returns the CONSTRAINT ... EXPECT clauses of a statement
// of file as the IR holds them: the condition as DuckDB reads it, with
// the ranges of the clause and of its condition.
func Expectations(file string, exps []Expect) []ir.Expectation {
	var out []ir.Expectation
	for _, e := range exps {
		out = append(out, ir.Expectation{
			Name: e.Name, SQL: e.DuckCond, Action: e.Action, InSQL: true,
			Loc: e.Span.Loc(file), SQLLoc: e.CondLoc.Loc(file),
		})
	}
	return out
}

// Spans returns the ranges of spans in file.
func Spans(file string, spans []Span) []ir.Loc {
	if len(spans) == 0 {
		return nil
	}
	out := make([]ir.Loc, len(spans))
	for i, s := range spans {
		out[i] = s.Loc(file)
	}
	return out
}
