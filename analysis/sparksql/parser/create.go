package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// create reads CREATE TABLE | MATERIALIZED VIEW | STREAMING TABLE | VIEW |
// FLOW and REPLACE TABLE; every other CREATE is an Other statement.
func (p *parser) create(partial *ast.Stmt) ast.Stmt {
	save := p.pos
	start := p.tok().Start
	c := &ast.Create{}
	if p.at("REPLACE") {
		p.pos++
		if !p.at("TABLE") {
			p.pos = save
			return p.otherStatement()
		}
		c.OrReplace = true
	} else {
		p.pos++ // CREATE
		if p.atSeq("OR", "REPLACE") {
			p.pos += 2
			c.OrReplace = true
		} else if p.at("OR") && isWord(p.peek(1), "REFRESH") {
			p.databricksOnly(p.peek(1), "CREATE OR REFRESH", "write CREATE MATERIALIZED VIEW or CREATE STREAMING TABLE")
			p.pos += 2
			c.OrRefresh = true
		}
	}
	if isWord(p.tok(), "PRIVATE") {
		p.databricksOnly(p.tok(), "CREATE PRIVATE", "leave PRIVATE out (a dataset of the pipeline)")
		p.pos++
		c.Private = true
	}
	global := !c.Private && p.accept("GLOBAL")
	temp := p.accept("TEMPORARY")
	if isWord(p.tok(), "LIVE") || (p.at("STREAMING") && isWord(p.peek(1), "LIVE")) {
		streaming := p.accept("STREAMING")
		p.databricksOnly(p.tok(), "LIVE TABLE | LIVE VIEW (the legacy Delta Live Tables form)",
			"write CREATE MATERIALIZED VIEW, CREATE STREAMING TABLE or CREATE TEMPORARY VIEW")
		p.pos++
		c.Live = true
		switch {
		case p.at("TABLE"):
			p.pos++
			c.Kind = ast.CreateMaterializedView
			if streaming {
				c.Kind = ast.CreateStreamingTable
			}
			c.Temporary = temp
			return p.createDataset(c, start, partial)
		case p.at("VIEW") && !streaming:
			p.pos++
			c.Kind = ast.CreateView
			if temp {
				c.Kind = ast.CreateTempView
			}
			return p.createView(c, start, partial)
		}
		p.fail("TABLE or VIEW")
	}
	dbx := p.opts.Databricks
	external := !temp && p.accept("EXTERNAL")
	if temp && !global && p.at("EXTERNAL") {
		p.pos++
		external = true
	}
	switch {
	case p.at("TABLE"):
		if global {
			p.pos = save
			return p.otherStatement()
		}
		p.pos++
		c.Kind = ast.CreateTable
		c.Temporary, c.External = temp, external
	case (p.atSeq("MATERIALIZED", "VIEW") || p.atSeq("STREAMING", "TABLE")) && c.OrReplace:
		// createPipelineDataset has no OR REPLACE
		p.fail("")
	case p.atSeq("MATERIALIZED", "VIEW") && !global && (!temp || dbx) && !external:
		p.pos += 2
		c.Kind = ast.CreateMaterializedView
		c.Temporary = temp
	case p.atSeq("STREAMING", "TABLE") && !global && (!temp || dbx) && !external:
		p.pos += 2
		c.Kind = ast.CreateStreamingTable
		c.Temporary = temp
	case p.at("VIEW") && !external:
		p.pos++
		c.Kind = ast.CreateView
		if temp {
			c.Kind = ast.CreateTempView
			if global {
				c.Kind = ast.CreateGlobalTempView
			}
		} else if global {
			p.pos--
			p.fail("TEMPORARY")
		}
		return p.createView(c, start, partial)
	case p.at("FLOW") && !c.OrReplace && !global && !temp && !external:
		return p.createFlow(start, partial)
	default:
		p.pos = save
		return p.otherStatement()
	}
	return p.createDataset(c, start, partial)
}

// createDataset reads a CREATE TABLE | MATERIALIZED VIEW | STREAMING TABLE
// from IF NOT EXISTS on.
func (p *parser) createDataset(c *ast.Create, start int, partial *ast.Stmt) ast.Stmt {
	if p.atSeq("IF", "NOT", "EXISTS") || (p.at("IF") && isKw(p.peek(1), "NOT")) {
		p.pos += 2
		p.expect("EXISTS")
		c.IfNotExists = true
	}
	c.Name = p.identifierReference()
	if c.Kind == ast.CreateTable && p.at("LIKE") {
		p.pos++
		c.Like = p.multipart()
		p.createLikeClauses(c)
		c.Range = p.rangeFrom(start)
		return c
	}
	*partial = c
	if p.tok().Kind == lex.LeftParen && !p.startsQueryAfterParens(0) {
		p.pos++
		if p.tok().Kind != lex.RightParen || c.Kind == ast.CreateTable {
			p.tableElements(c)
		}
		p.expectKind(lex.RightParen)
	}
	if p.at("USING") {
		p.pos++
		c.Using = p.multipart()
		c.Clauses = append(c.Clauses, ast.Clause{Range: c.Using.Range, Keyword: "USING"})
	}
	p.tableClauses(c)
	if c.Kind == ast.CreateStreamingTable && p.at("FLOW") && (p.atWords(1, "INSERT") || p.atWords(1, "REPLACE", "WHERE")) {
		p.databricksFlow(c)
		c.Range = p.rangeFrom(start)
		p.checkCreate(c)
		return c
	}
	if p.at("FLOW") && p.atWords(1, "AUTO", "CDC") &&
		(c.Kind == ast.CreateStreamingTable || c.Kind == ast.CreateMaterializedView) {
		ft := p.next()
		p.needs43(ft)
		a := p.autoCDC(false)
		if c.Kind != ast.CreateStreamingTable {
			p.failRange(ast.Range{Start: ft.Start, End: a.End}, "_LEGACY_ERROR_TEMP_0035",
				"operation not allowed: AUTO CDC is only supported for STREAMING TABLE, not MATERIALIZED VIEW")
		}
		c.AutoCDC = a
		c.Range = p.rangeFrom(start)
		return c
	}
	if c.Kind == ast.CreateTable {
		if p.accept("AS") || p.startsQuery() {
			c.Query = p.query()
		}
	} else if p.accept("AS") {
		c.Query = p.query()
	}
	c.Range = p.rangeFrom(start)
	p.checkCreate(c)
	return c
}

// databricksFlow reads Databricks' own flow of a streaming table, at
// FLOW: FLOW INSERT [ONCE] BY NAME query or FLOW REPLACE WHERE predicate
// BY NAME query. Spark's grammar stops at FLOW (4.1, 4.2) or at the word
// after it (4.3, which reads FLOW AUTO CDC), as its parsers do.
func (p *parser) databricksFlow(c *ast.Create) {
	at := p.tok()
	if p.opts.Version >= Spark43 {
		at = p.peek(1)
	}
	form := "FLOW INSERT ... BY NAME"
	if p.atWords(1, "REPLACE") {
		form = "FLOW REPLACE WHERE ... BY NAME"
	}
	p.databricksOnly(at, form, "write CREATE STREAMING TABLE t; and CREATE FLOW f AS INSERT INTO t BY NAME query")
	p.pos++ // FLOW
	if p.atWords(0, "INSERT") {
		p.pos++
		c.FlowInsert = true
		if p.atWords(0, "ONCE") {
			p.pos++
			c.FlowOnce = true
		}
	} else {
		p.pos += 2 // REPLACE WHERE
		c.ReplaceWhere = p.expr()
	}
	p.expect("BY")
	p.expect("NAME")
	c.Query = p.query()
}

// checkCreate makes the checks Spark's AST builder makes on a CREATE
// TABLE | MATERIALIZED VIEW | STREAMING TABLE its grammar accepted.
func (p *parser) checkCreate(c *ast.Create) {
	var cluster, partition *ast.Clause
	for i := range c.Clauses {
		switch c.Clauses[i].Keyword {
		case "CLUSTER BY":
			cluster = &c.Clauses[i]
		case "PARTITIONED BY":
			partition = &c.Clauses[i]
		}
	}
	if cluster != nil && partition != nil {
		p.failRange(ast.Range{Start: min(cluster.Start, partition.Start), End: max(cluster.End, partition.End)},
			"SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED", "cannot specify both CLUSTER BY and PARTITIONED BY: keep one")
	}
	if c.Kind != ast.CreateMaterializedView && c.Kind != ast.CreateStreamingTable {
		return
	}
	for _, k := range c.Constraints {
		if k.Kind != "EXPECT" {
			p.failRange(k.Range, "_LEGACY_ERROR_TEMP_0035", "operation not allowed: pipeline datasets do not currently "+
				"support column constraints; remove the CHECK, UNIQUE, PRIMARY KEY and FOREIGN KEY constraints")
		}
	}
	for _, col := range c.Columns {
		if len(col.Constraints) > 0 {
			p.failRange(col.Constraints[0].Range, "_LEGACY_ERROR_TEMP_0035", "operation not allowed: pipeline datasets do "+
				"not currently support column constraints; remove the CHECK, UNIQUE, PRIMARY KEY and FOREIGN KEY constraints")
		}
	}
	for _, cl := range c.Clauses {
		if cl.Keyword == "OPTIONS" {
			p.failRange(cl.Range, "_LEGACY_ERROR_TEMP_0035", "operation not allowed: options are not supported for CREATE "+
				c.Kind.String()+" statements; remove the OPTIONS list")
		}
		// Spark 4.1.4's AST builder: "Operation not allowed: Specifying
		// location is not supported for CREATE MATERIALIZED VIEW
		// statements. The storage location for a pipeline dataset is
		// managed by the pipeline itself." (checked with spark-pipelines
		// dry-run). Databricks is not checked here.
		if cl.Keyword == "LOCATION" && !p.opts.Databricks {
			p.failRange(cl.Range, "_LEGACY_ERROR_TEMP_0035", "operation not allowed: specifying location is not supported for CREATE "+
				c.Kind.String()+" statements, the storage location for a pipeline dataset is managed by the pipeline itself "+
				"(its storage root, `storage:` in spark-pipeline.yml): remove the LOCATION clause")
		}
	}
}

// checkTempViewName refuses a qualified temporary view name: Spark 4.1
// takes single-part names only, Spark 4.2 and later a name qualified with
// SESSION or SYSTEM.SESSION as well.
func (p *parser) checkTempViewName(n *ast.Name) {
	if n == nil || len(n.Parts) < 2 {
		return
	}
	if p.opts.Version >= Spark42 {
		q := n.Parts[:len(n.Parts)-1]
		session := len(q) == 1 && strings.EqualFold(q[0].Name, "SESSION") ||
			len(q) == 2 && strings.EqualFold(q[0].Name, "SYSTEM") && strings.EqualFold(q[1].Name, "SESSION")
		if !session {
			p.failRange(n.Range, "INVALID_TEMP_OBJ_QUALIFIER", "temporary view "+n.Parts[len(n.Parts)-1].Name+
				" cannot be qualified with "+(&ast.Name{Parts: q}).String()+": temporary objects can only be qualified with SESSION or SYSTEM.SESSION")
		}
		return
	}
	if len(n.Parts) > 2 {
		p.failRange(n.Range, "IDENTIFIER_TOO_MANY_NAME_PARTS", n.String()+" is not a valid identifier as it has more than 2 name parts")
	}
	p.failRange(n.Range, "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS", "CREATE TEMPORARY VIEW only accepts single-part view names, but got: "+
		n.String()+"; leave out the qualifier (Spark 4.2 also accepts SESSION.)")
}

// startsQuery reports whether a query starts at the current token.
func (p *parser) startsQuery() bool {
	t := p.tok()
	return isKw(t, "SELECT") || isKw(t, "WITH") || isKw(t, "VALUES") || isKw(t, "FROM") ||
		isKw(t, "TABLE") || isKw(t, "MAP") || isKw(t, "REDUCE") ||
		(t.Kind == lex.LeftParen && p.startsQueryAfterParens(0))
}

// tableElements reads column definitions and table constraints.
func (p *parser) tableElements(c *ast.Create) {
	for {
		if p.at("CONSTRAINT") || p.atSeq("PRIMARY", "KEY") || p.at("UNIQUE") || p.atSeq("FOREIGN", "KEY") ||
			(p.at("CHECK") && p.peek(1).Kind == lex.LeftParen) {
			c.Constraints = append(c.Constraints, p.tableConstraint())
		} else {
			c.Columns = append(c.Columns, p.columnDef())
		}
		if !p.acceptKind(lex.Comma) {
			return
		}
	}
}

// columnDef reads name type [options].
func (p *parser) columnDef() *ast.ColumnDef {
	start := p.tok().Start
	col := &ast.ColumnDef{Name: p.errIdent(anyIdent)}
	col.Type = p.dataType()
	for {
		switch {
		case (p.at("NOT") || p.tok().Kind == lex.Bang) && isKw(p.peek(1), "NULL"):
			p.pos += 2
			col.NotNull = true
		case p.at("DEFAULT"):
			p.pos++
			col.Default = p.expr()
		case p.atSeq("GENERATED", "ALWAYS", "AS") && p.peek(3).Kind == lex.LeftParen:
			p.pos += 4
			col.Generated = p.expr()
			p.expectKind(lex.RightParen)
		case p.at("GENERATED"):
			p.pos++
			if !p.accept("ALWAYS") {
				p.expect("BY")
				p.expect("DEFAULT")
				col.IdentityByDefault = true
			}
			p.expect("AS")
			p.expect("IDENTITY")
			col.Identity = true
			if p.acceptKind(lex.LeftParen) {
				for !p.acceptKind(lex.RightParen) {
					os := p.tok().Start
					opt, name := &col.IdentityStart, "START"
					switch {
					case p.atSeq("START", "WITH"):
						p.pos += 2
					case p.atSeq("INCREMENT", "BY"):
						p.pos += 2
						opt, name = &col.IdentityStep, "INCREMENT"
					default:
						p.fail("START WITH or INCREMENT BY")
					}
					vs := p.tok().Start
					p.acceptKind(lex.Minus)
					t := p.tok()
					if t.Kind != lex.Integer && t.Kind != lex.BigInt {
						p.fail("an integer")
					}
					p.pos++
					if *opt != nil {
						p.failRange(p.rangeFrom(os), "IDENTITY_COLUMNS_DUPLICATED_SEQUENCE_GENERATOR_OPTION",
							"duplicated IDENTITY column sequence generator option: "+name+" is written twice; keep one")
					}
					*opt = &ast.Literal{Range: p.rangeFrom(vs), Kind: numKind(t.Kind), Text: p.src[vs:t.End]}
				}
			}
		case p.at("COMMENT"):
			p.pos++
			col.Comment = p.stringLit()
		case p.at("CONSTRAINT") || p.atSeq("PRIMARY", "KEY") || p.at("UNIQUE") || p.at("REFERENCES") ||
			(p.at("CHECK") && p.peek(1).Kind == lex.LeftParen):
			col.Constraints = append(col.Constraints, p.columnConstraint())
		default:
			col.Range = p.rangeFrom(start)
			return col
		}
	}
}

// columnConstraint reads [CONSTRAINT name] CHECK (...) | UNIQUE |
// PRIMARY KEY | REFERENCES t [(cols)] with characteristics.
func (p *parser) columnConstraint() *ast.Constraint {
	start := p.tok().Start
	k := &ast.Constraint{}
	if p.accept("CONSTRAINT") {
		k.Name = p.errIdent(anyIdent)
	}
	switch {
	case p.at("CHECK"):
		p.pos++
		k.Kind = "CHECK"
		p.expectKind(lex.LeftParen)
		k.Check = p.expr()
		p.expectKind(lex.RightParen)
	case p.at("UNIQUE"):
		p.pos++
		k.Kind = "UNIQUE"
	case p.atSeq("PRIMARY", "KEY"):
		p.pos += 2
		k.Kind = "PRIMARY KEY"
	case p.at("REFERENCES"):
		p.referenceSpec(k)
		k.Kind = "REFERENCES"
	default:
		p.fail("CHECK, UNIQUE, PRIMARY KEY or REFERENCES")
	}
	p.constraintCharacteristics()
	k.Range = p.rangeFrom(start)
	return k
}

// tableConstraint reads a table constraint.
func (p *parser) tableConstraint() *ast.Constraint {
	start := p.tok().Start
	k := &ast.Constraint{}
	if p.accept("CONSTRAINT") {
		k.Name = p.errIdent(anyIdent)
	}
	switch {
	case k.Name != nil && isWord(p.tok(), "EXPECT"):
		p.databricksOnly(p.tok(), "CONSTRAINT name EXPECT (an expectation)",
			"write CONSTRAINT name CHECK (cond), or filter the rows in the query")
		p.pos++
		k.Kind = "EXPECT"
		p.expectKind(lex.LeftParen)
		k.Check = p.expr()
		p.expectKind(lex.RightParen)
		if p.atSeq("ON") && isWord(p.peek(1), "VIOLATION") {
			p.pos += 2
			switch {
			case p.atWords(0, "DROP", "ROW"):
				k.OnViolation = "DROP ROW"
			case p.atWords(0, "FAIL", "UPDATE"):
				k.OnViolation = "FAIL UPDATE"
			default:
				p.fail("DROP ROW or FAIL UPDATE")
			}
			p.pos += 2
		}
		k.Range = p.rangeFrom(start)
		return k
	case p.at("CHECK"):
		p.pos++
		k.Kind = "CHECK"
		p.expectKind(lex.LeftParen)
		k.Check = p.expr()
		p.expectKind(lex.RightParen)
	case p.at("UNIQUE"):
		p.pos++
		k.Kind = "UNIQUE"
		k.Columns = p.identList()
	case p.atSeq("PRIMARY", "KEY"):
		p.pos += 2
		k.Kind = "PRIMARY KEY"
		k.Columns = p.identList()
	case p.atSeq("FOREIGN", "KEY"):
		p.pos += 2
		k.Kind = "FOREIGN KEY"
		k.Columns = p.identList()
		p.referenceSpec(k)
	default:
		p.fail("CHECK, UNIQUE, PRIMARY KEY or FOREIGN KEY")
	}
	p.constraintCharacteristics()
	k.Range = p.rangeFrom(start)
	return k
}

func (p *parser) referenceSpec(k *ast.Constraint) {
	p.expect("REFERENCES")
	k.Ref = p.multipart()
	if p.tok().Kind == lex.LeftParen {
		k.RefColumns = p.identList()
	}
}

func (p *parser) constraintCharacteristics() {
	for {
		switch {
		case p.at("ENFORCED"), p.at("RELY"), p.at("NORELY"):
			p.pos++
		case p.atSeq("NOT", "ENFORCED"):
			p.pos += 2
		default:
			return
		}
	}
}

// clusterMode reads Databricks' CLUSTER BY AUTO | NONE, at AUTO or NONE:
// Spark's clusterBySpec takes a parenthesised column list only (Spark
// 4.1.4 and 4.3.0 stop at the word: "missing '('"), so without the
// Databricks option it is Spark's error with a note naming the form.
func (p *parser) clusterMode(c *ast.Create) {
	t := p.tok()
	p.databricksOnly(t, "CLUSTER BY "+strings.ToUpper(t.Text),
		"write CLUSTER BY (col, ...) or leave the clause out (clustering changes no rows)")
	p.pos++
	c.ClusterMode = strings.ToUpper(t.Text)
}

// tableClauses reads createTableClauses in any order, refusing a clause
// written twice as Spark does.
func (p *parser) tableClauses(c *ast.Create) {
	for {
		start := p.tok().Start
		kw := ""
		switch {
		case p.at("OPTIONS"):
			p.pos++
			kw = "OPTIONS"
			c.Options = p.propertyList(true)
		case p.atSeq("PARTITIONED", "BY"):
			p.pos += 2
			kw = "PARTITIONED BY"
			c.PartitionedBy = p.partitionFields()
		case p.atSeq("SKEWED", "BY"):
			p.pos += 2
			kw = "SKEWED BY"
			p.identList()
			p.expect("ON")
			p.skewValues()
			p.acceptSeq("STORED", "AS", "DIRECTORIES")
		case p.atSeq("CLUSTER", "BY"):
			p.pos += 2
			kw = "CLUSTER BY"
			if p.atWords(0, "AUTO") || p.atWords(0, "NONE") {
				p.clusterMode(c)
				break
			}
			p.expectKind(lex.LeftParen)
			c.ClusterBy = p.multipartList()
			p.expectKind(lex.RightParen)
		case p.atSeq("CLUSTERED", "BY"):
			p.pos += 2
			kw = "CLUSTERED BY"
			p.identList()
			if p.acceptSeq("SORTED", "BY") {
				p.expectKind(lex.LeftParen)
				for {
					p.errIdent(anyIdent)
					if p.at("ASC") || p.at("DESC") {
						p.pos++
					}
					if !p.acceptKind(lex.Comma) {
						break
					}
				}
				p.expectKind(lex.RightParen)
			}
			p.expect("INTO")
			p.integer()
			p.expect("BUCKETS")
		case p.atSeq("ROW", "FORMAT"):
			kw = "ROW FORMAT"
			p.rowFormat()
		case p.at("STORED"):
			kw = "STORED AS"
			p.fileFormat()
		case p.at("LOCATION"):
			p.pos++
			kw = "LOCATION"
			c.Location = p.stringLit()
		case p.at("COMMENT"):
			p.pos++
			kw = "COMMENT"
			c.Comment = p.stringLit()
		case p.atSeq("DEFAULT", "COLLATION"):
			p.pos += 2
			kw = "DEFAULT COLLATION"
			p.ident(anyIdent)
		case p.at("TBLPROPERTIES"):
			p.pos++
			kw = "TBLPROPERTIES"
			c.Properties = p.propertyList(false)
		default:
			return
		}
		r := p.rangeFrom(start)
		for _, cl := range c.Clauses {
			if cl.Keyword == kw {
				p.failRange(r, "DUPLICATE_CLAUSES", "found duplicate clauses: "+kw+" is written twice (first at "+
					"offset "+itoa(cl.Start)+"); keep one")
			}
		}
		c.Clauses = append(c.Clauses, ast.Clause{Range: r, Keyword: kw})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// skewValues reads constantList | nestedConstantList.
func (p *parser) skewValues() {
	p.expectKind(lex.LeftParen)
	for {
		if p.acceptKind(lex.LeftParen) {
			for {
				p.constant()
				if !p.acceptKind(lex.Comma) {
					break
				}
			}
			p.expectKind(lex.RightParen)
		} else {
			p.constant()
		}
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	p.expectKind(lex.RightParen)
}

// partitionFields reads ( transform | colType, ... ).
func (p *parser) partitionFields() []ast.Node {
	p.expectKind(lex.LeftParen)
	var fs []ast.Node
	for {
		start := p.tok().Start
		switch {
		case p.canIdent(p.tok(), anyIdent) && p.peek(1).Kind == lex.LeftParen:
			c := &ast.Call{Name: nameOf(p.ident(anyIdent))}
			p.pos++
			for {
				t := p.tok()
				if p.canIdent(t, anyIdent) && !(isKw(t, "NULL") || isKw(t, "TRUE") || isKw(t, "FALSE")) && !p.isStringTok(p.peek(1)) {
					n := p.qualifiedName()
					c.Args = append(c.Args, &ast.Column{Range: n.Range, Parts: n.Parts})
				} else {
					c.Args = append(c.Args, p.constant())
				}
				if !p.acceptKind(lex.Comma) {
					break
				}
			}
			p.expectKind(lex.RightParen)
			c.Range = p.rangeFrom(start)
			fs = append(fs, c)
		default:
			n := p.qualifiedName()
			if len(n.Parts) == 1 && p.tok().Kind != lex.Comma && p.tok().Kind != lex.RightParen {
				col := &ast.ColumnDef{Name: n.Parts[0], Type: p.dataType()}
				if (p.at("NOT") || p.tok().Kind == lex.Bang) && isKw(p.peek(1), "NULL") {
					p.pos += 2
					col.NotNull = true
				}
				if p.accept("COMMENT") {
					col.Comment = p.stringLit()
				}
				col.Range = p.rangeFrom(start)
				fs = append(fs, col)
			} else {
				fs = append(fs, &ast.Column{Range: n.Range, Parts: n.Parts})
			}
		}
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	p.expectKind(lex.RightParen)
	return fs
}

// createLikeClauses reads the clauses of CREATE TABLE ... LIKE.
func (p *parser) createLikeClauses(c *ast.Create) {
	for {
		switch {
		case p.at("USING"):
			p.pos++
			c.Using = p.multipart()
		case p.atSeq("ROW", "FORMAT"):
			p.rowFormat()
		case p.at("STORED"):
			p.fileFormat()
		case p.at("LOCATION"):
			p.pos++
			c.Location = p.stringLit()
		case p.at("TBLPROPERTIES"):
			p.pos++
			c.Properties = p.propertyList(false)
		default:
			return
		}
	}
}

// createView reads the rest of CREATE [OR REPLACE] [[GLOBAL] TEMPORARY]
// VIEW, including the USING form of temporary views.
func (p *parser) createView(c *ast.Create, start int, partial *ast.Stmt) ast.Stmt {
	if p.atSeq("IF", "NOT", "EXISTS") {
		p.pos += 3
		c.IfNotExists = true
	}
	c.Name = p.identifierReference()
	if c.Kind != ast.CreateView {
		p.checkTempViewName(c.Name)
	}
	*partial = c
	// CREATE TEMPORARY VIEW t [(cols with types)] USING fmt [OPTIONS (...)]
	if c.Kind != ast.CreateView {
		save := p.pos
		var using bool
		p.try(func() {
			if p.tok().Kind == lex.LeftParen {
				p.pos++
				for {
					c.Columns = append(c.Columns, p.columnType())
					if !p.acceptKind(lex.Comma) {
						break
					}
				}
				p.expectKind(lex.RightParen)
			}
			if !p.at("USING") {
				p.fail("USING")
			}
			using = true
		})
		if using {
			p.pos++
			c.Using = p.multipart()
			if p.accept("OPTIONS") {
				c.Options = p.propertyList(false)
			}
			c.Range = p.rangeFrom(start)
			return c
		}
		p.pos = save
		c.Columns = nil
	}
	if p.tok().Kind == lex.LeftParen && !p.startsQueryAfterParens(0) {
		p.pos++
		for {
			cs := p.tok().Start
			if p.at("CONSTRAINT") && isWord(p.peek(2), "EXPECT") {
				// Databricks: a view's expectations (tableConstraint
				// refuses them without the Databricks option)
				c.Constraints = append(c.Constraints, p.tableConstraint())
				if !p.acceptKind(lex.Comma) {
					break
				}
				continue
			}
			col := &ast.ColumnDef{Name: p.ident(anyIdent)}
			if p.accept("COMMENT") {
				col.Comment = p.stringLit()
			}
			col.Range = p.rangeFrom(cs)
			c.Columns = append(c.Columns, col)
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		p.expectKind(lex.RightParen)
	}
	for {
		cs := p.tok().Start
		kw := ""
		switch {
		case p.at("COMMENT"):
			p.pos++
			kw = "COMMENT"
			c.Comment = p.stringLit()
		case p.atSeq("WITH", "SCHEMA"):
			p.pos += 2
			kw = "WITH SCHEMA"
			switch {
			case p.at("BINDING"), p.at("COMPENSATION"), p.at("EVOLUTION"):
				p.pos++
			case p.atSeq("TYPE", "EVOLUTION"):
				p.pos += 2
			default:
				p.fail("BINDING, COMPENSATION, EVOLUTION or TYPE EVOLUTION")
			}
		case p.atSeq("DEFAULT", "COLLATION"):
			p.pos += 2
			kw = "DEFAULT COLLATION"
			p.ident(anyIdent)
		case p.atSeq("PARTITIONED", "ON"):
			p.pos += 2
			kw = "PARTITIONED ON"
			p.identList()
		case p.at("TBLPROPERTIES"):
			p.pos++
			kw = "TBLPROPERTIES"
			c.Properties = p.propertyList(false)
		}
		if kw == "" {
			break
		}
		r := p.rangeFrom(cs)
		for _, cl := range c.Clauses {
			if cl.Keyword == kw {
				p.failRange(r, "DUPLICATE_CLAUSES", "found duplicate clauses: "+kw+" is written twice; keep one")
			}
		}
		c.Clauses = append(c.Clauses, ast.Clause{Range: r, Keyword: kw})
	}
	p.expect("AS")
	c.Query = p.query()
	c.Range = p.rangeFrom(start)
	return c
}

// columnType reads colType: name type [NOT NULL] [COMMENT '...'].
func (p *parser) columnType() *ast.ColumnDef {
	start := p.tok().Start
	col := &ast.ColumnDef{Name: p.errIdent(anyIdent), Type: p.dataType()}
	if (p.at("NOT") || p.tok().Kind == lex.Bang) && isKw(p.peek(1), "NULL") {
		p.pos += 2
		col.NotNull = true
	}
	if p.accept("COMMENT") {
		col.Comment = p.stringLit()
	}
	col.Range = p.rangeFrom(start)
	return col
}

// createFlow reads CREATE FLOW name [COMMENT '...'] AS INSERT ... query.
func (p *parser) createFlow(start int, partial *ast.Stmt) ast.Stmt {
	p.expect("FLOW")
	f := &ast.CreateFlow{Name: p.identifierReference()}
	*partial = f
	if p.accept("COMMENT") {
		f.Comment = p.stringLit()
	}
	p.expect("AS")
	if p.atAutoCDC() {
		p.needs43(p.tok())
		f.AutoCDC = p.autoCDC(true)
		f.Range = p.rangeFrom(start)
		return f
	}
	if p.atWords(0, "APPLY", "CHANGES") {
		// Databricks' older name of the same flow.
		p.databricksOnly(p.tok(), "CREATE FLOW ... AS APPLY CHANGES INTO", "write CREATE FLOW f AS AUTO CDC INTO t ... (Spark 4.3)")
		f.AutoCDC = p.autoCDC(true)
		f.Range = p.rangeFrom(start)
		return f
	}
	if !p.at("INSERT") {
		p.fail("INSERT INTO (a flow is CREATE FLOW name AS INSERT INTO target query)")
	}
	f.Insert = p.insert()
	f.Range = p.rangeFrom(start)
	return f
}

// RegistrationErrors returns what Spark's pipeline graph registration
// refuses in a pipeline statement its parser accepted (st, parsed from
// src with ParseStatement or ParseStatementAt): these are analysis
// errors of spark-pipelines dry-run, not syntax errors, so the parser
// itself accepts them, as spark.sql's parser does. Databricks' grammar
// is not checked here. Each message was checked with Spark 4.1.4's
// spark-pipelines dry-run:
//
//   - a PARTITIONED BY transform (years(ts), bucket(4, id), ...) of a
//     materialized view or streaming table: PIPELINE_SQL_GRAPH_ELEMENT_
//     REGISTRATION_ERROR "Invalid partitioning transform (years(ts))".
//   - a column list on CREATE STREAMING TABLE t (...) FLOW AUTO CDC
//     (Spark 4.3.0): PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR
//     "Explicit column lists are not supported for AUTO CDC streaming
//     tables". (A column list on a streaming table that a separate
//     CREATE FLOW ... AS AUTO CDC fills is not refused for being one.)
func RegistrationErrors(st ast.Stmt, src string) []*ast.SyntaxError {
	c, ok := st.(*ast.Create)
	if !ok || c == nil || (c.Kind != ast.CreateMaterializedView && c.Kind != ast.CreateStreamingTable) {
		return nil
	}
	var out []*ast.SyntaxError
	if c.AutoCDC != nil && len(c.Columns) > 0 {
		r := ast.Range{Start: c.Columns[0].Start, End: c.Columns[len(c.Columns)-1].End}
		out = append(out, &ast.SyntaxError{Range: r, Class: "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR",
			Message: "explicit column lists are not supported for AUTO CDC streaming tables: omit the column list and let the " +
				"schema be inferred from the flow (or choose the columns with the flow's COLUMNS clause)"})
	}
	for _, f := range c.PartitionedBy {
		call, ok := f.(*ast.Call)
		if !ok || call.End > len(src) || call.Start < 0 || call.Start > call.End {
			continue
		}
		out = append(out, &ast.SyntaxError{Range: call.Range, Class: "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR",
			Message: "invalid partitioning transform (" + src[call.Start:call.End] + "): a pipeline dataset is partitioned " +
				"by plain columns only; compute the value in the query (e.g. SELECT year(ts) AS ts_year ...) and partition by that column"})
	}
	return out
}
