package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// autoCDCNote is added to the syntax error Spark 4.1 and 4.2 give for the
// AUTO CDC statements.
const autoCDCNote = "; AUTO CDC in SQL needs Spark 4.3 (this check reads Spark "

// atAutoCDC reports whether AUTO CDC is next.
func (p *parser) atAutoCDC() bool { return p.atWords(0, "AUTO", "CDC") }

// isWord reports whether t is the unquoted word w, a keyword or not (the
// words of Spark 4.3's AUTO CDC are no keywords of the lexer, which
// follows Spark 4.1).
func isWord(t lex.Token, w string) bool {
	return t.Kind == lex.Ident && strings.EqualFold(t.Text, w)
}

// atWords reports whether the words ws come from n tokens ahead on.
func (p *parser) atWords(n int, ws ...string) bool {
	for i, w := range ws {
		if !isWord(p.peek(n+i), w) {
			return false
		}
	}
	return true
}

// expectWord consumes the word w or fails.
func (p *parser) expectWord(w string) {
	if !isWord(p.tok(), w) {
		p.fail(w)
	}
	p.pos++
}

// needs43 fails at t, where Spark before 4.3 stops, when the version has
// no AUTO CDC.
func (p *parser) needs43(t lex.Token) {
	if p.opts.Version >= Spark43 || p.opts.Databricks {
		return
	}
	p.failAt(t, "", syntaxMessage(t, "")+autoCDCNote+p.opts.Version.String()+
		"): target Spark 4.3, or write the flow as INSERT INTO with a query")
}

// autoCDC reads AUTO CDC [INTO target] FROM source KEYS (cols) and its
// clauses; into is set for CREATE FLOW's form, which names the target.
// The source is a relationPrimary that streams: STREAM(s) [alias], or a
// subquery over one, (SELECT ... FROM STREAM(s) WHERE ...) [alias]; the
// tree's From is that relation as written, its range from after FROM to
// before KEYS, and Source the STREAM read in it.
func (p *parser) autoCDC(into bool) *ast.AutoCDC {
	start := p.tok().Start
	p.pos += 2 // AUTO CDC
	a := &ast.AutoCDC{}
	if into {
		p.expect("INTO")
		a.Target = p.identifierReference()
	}
	p.expect("FROM")
	rel := p.relationPrimary(false)
	p.keysNoAlias(rel)
	src := streamIn(rel)
	if src == nil {
		p.failRange(rel.Span(), "_LEGACY_ERROR_TEMP_0035",
			"operation not allowed: AUTO CDC source must be a streaming query, e.g. STREAM(<table>)")
	}
	a.Source, a.From = src, rel
	p.expect("KEYS")
	p.expectKind(lex.LeftParen)
	a.Keys = p.multipartList()
	p.expectKind(lex.RightParen)
	for {
		cs := p.tok().Start
		kw := ""
		switch {
		case p.atWords(0, "SEQUENCE", "BY"):
			p.pos += 2
			kw = "SEQUENCE BY"
			a.SequenceBy = p.expr()
		case p.atWords(0, "APPLY") && isKw(p.peek(1), "AS") && isWord(p.peek(2), "TRUNCATE"):
			p.databricksOnly(p.peek(2), "APPLY AS TRUNCATE WHEN", "leave it out")
			p.pos += 3
			p.expect("WHEN")
			kw = "APPLY AS TRUNCATE WHEN"
			a.TruncateWhen = p.expr()
		case p.atWords(0, "APPLY"):
			p.pos++
			p.expect("AS")
			p.expect("DELETE")
			p.expect("WHEN")
			kw = "APPLY AS DELETE WHEN"
			a.DeleteWhen = p.expr()
		case p.atWords(0, "IGNORE", "NULL", "UPDATES"):
			p.databricksOnly(p.tok(), "IGNORE NULL UPDATES", "leave it out")
			p.pos += 3
			kw = "IGNORE NULL UPDATES"
			a.IgnoreNullUpdates = true
		case p.at("COLUMNS"):
			p.pos++
			kw = "COLUMNS"
			a.ColumnsExcept, a.Columns = p.cdcColumnList()
		case p.at("STORED"):
			p.pos++
			p.expect("AS")
			p.expectWord("SCD")
			p.expect("TYPE")
			kw = "STORED AS"
			t := p.expectKind(lex.Integer)
			switch t.Text {
			case "1":
				a.SCDType = 1
			case "2":
				a.SCDType = 2
			default:
				p.failRange(tokRange(t), "_LEGACY_ERROR_TEMP_0035", "operation not allowed: unsupported SCD type: "+
					t.Text+"; AUTO CDC only supports STORED AS SCD TYPE 1 or SCD TYPE 2")
			}
		case p.atWords(0, "TRACK", "HISTORY"):
			p.pos += 2
			p.expect("ON")
			kw = "TRACK HISTORY"
			a.TrackHistoryExcept, a.TrackHistory = p.cdcColumnList()
		}
		if kw == "" {
			break
		}
		r := p.rangeFrom(cs)
		for _, cl := range a.Clauses {
			if cl.Keyword == kw {
				p.failRange(r, "DUPLICATE_CLAUSES", "found duplicate clauses: "+kw+" is written twice; keep one")
			}
		}
		a.Clauses = append(a.Clauses, ast.Clause{Range: r, Keyword: kw})
	}
	a.Range = p.rangeFrom(start)
	if a.SequenceBy == nil {
		p.failRange(a.Range, "MISSING_CLAUSES_FOR_OPERATION",
			"missing required clause(s) SEQUENCE BY for operation AUTO CDC: add SEQUENCE BY the column that orders the changes")
	}
	return a
}

// keysNoAlias undoes the alias KEYS (cols) that the source rel took
// from the KEYS clause after it (STREAM(s) KEYS (id), (SELECT ...) KEYS
// (id)): unless a second KEYS follows, KEYS begins the clause, as in
// Spark's grammar, and is no alias.
func (p *parser) keysNoAlias(rel ast.Relation) {
	var al **ast.TableAlias
	var rng *ast.Range
	switch r := rel.(type) {
	case *ast.Table:
		al, rng = &r.Alias, &r.Range
	case *ast.SubqueryRel:
		al, rng = &r.Alias, &r.Range
	case *ast.ParenRel:
		al, rng = &r.Alias, &r.Range
	default:
		return
	}
	a := *al
	if a == nil || a.Columns == nil || a.Name == nil || a.Name.Quoted ||
		!strings.EqualFold(a.Name.Name, "KEYS") || p.at("KEYS") {
		return
	}
	p.pos = p.indexOf(lex.Token{Start: a.Start})
	*al = nil
	*rng = p.rangeFrom(rng.Start)
}

// streamIn is the streaming read that makes the AUTO CDC source rel a
// streaming query, nil when it is none: rel itself when it is STREAM(s),
// else the first STREAM read among the relations inside it (a subquery
// over STREAM(s) streams, as Spark 4.3 and Databricks accept: a plan
// streams when one of its leaves does). A STREAM inside an expression's
// subquery does not count.
func streamIn(rel ast.Relation) *ast.Table {
	if t, ok := rel.(*ast.Table); ok {
		if t.Stream {
			return t
		}
		return nil
	}
	var found *ast.Table
	ast.Inspect(rel, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch x := n.(type) {
		case *ast.Table:
			if x.Stream {
				found = x
			}
			return false
		case *ast.Subquery, *ast.Exists:
			return false
		case *ast.In:
			return x.Query == nil
		}
		return true
	})
	return found
}

// cdcColumnList reads (cols) or * EXCEPT (cols).
func (p *parser) cdcColumnList() (except bool, cols []*ast.Name) {
	if p.acceptKind(lex.Asterisk) {
		p.expect("EXCEPT")
		except = true
	}
	p.expectKind(lex.LeftParen)
	cols = p.multipartList()
	p.expectKind(lex.RightParen)
	return except, cols
}

// databricksOnly fails at t, where Spark stops, unless the parser reads
// Databricks SQL: form is the Databricks construct, instead what to write
// for Spark.
func (p *parser) databricksOnly(t lex.Token, form, instead string) {
	if p.opts.Databricks {
		return
	}
	p.failAt(t, "", syntaxMessage(t, "")+"; "+form+" is Databricks SQL (Lakeflow Declarative Pipelines), not Spark: "+
		instead+", or check with the databricks backend")
}

// applyChanges reads Databricks' APPLY CHANGES INTO t FROM ... statement.
func (p *parser) applyChanges() ast.Stmt {
	t := p.tok()
	p.databricksOnly(t, "APPLY CHANGES INTO", "write CREATE FLOW f AS AUTO CDC INTO t ... (Spark 4.3)")
	a := p.autoCDC(true)
	return &ast.ApplyChanges{Range: a.Range, CDC: a}
}
