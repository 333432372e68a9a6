package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// alterCmd reads ALTER NAMESPACE | TABLE | VIEW ... and the Hive command
// ALTER INDEX.
func (p *parser) alterCmd(c *cmd) {
	if p.nativeCmd(c, 1, "INDEX") {
		return
	}
	switch n := p.peek(1); {
	case isKw(n, "NAMESPACE"), isKw(n, "DATABASE"), isKw(n, "SCHEMA"):
		p.alterNamespace(c)
	case isKw(n, "TABLE"):
		save := p.pos
		t := &cmd{p: p, o: &ast.Other{}, start: c.start, sc: c.sc}
		if p.try(func() { p.alterTable(t, false); p.otherExpectEnd() }) {
			*c.o, c.sem = *t.o, t.sem
			return
		}
		p.pos = save
		if p.alterTableNative(c) {
			return
		}
		p.pos = save
		p.alterTable(c, false)
	case isKw(n, "VIEW"):
		p.alterTable(c, true)
	default:
		p.pos++
		p.fail("TABLE, VIEW or NAMESPACE")
	}
}

// alterNamespace reads ALTER NAMESPACE name SET | UNSET [DB]PROPERTIES
// (...), SET LOCATION '...' or DEFAULT COLLATION c.
func (p *parser) alterNamespace(c *cmd) {
	c.o.Kind = "ALTER NAMESPACE"
	p.pos += 2
	c.name()
	switch {
	case p.atSeq("SET", "DBPROPERTIES"), p.atSeq("SET", "PROPERTIES"):
		p.pos += 2
		c.props(propsValues, reservedNamespace, "UNSUPPORTED_FEATURE.SET_NAMESPACE_PROPERTY")
	case p.atSeq("UNSET", "DBPROPERTIES"), p.atSeq("UNSET", "PROPERTIES"):
		p.pos += 2
		c.props(propsKeys, reservedNamespace, "UNSUPPORTED_FEATURE.SET_NAMESPACE_PROPERTY")
	case p.atSeq("SET", "LOCATION"):
		p.pos += 2
		p.stringLit()
	case p.atSeq("DEFAULT", "COLLATION"):
		// Spark 4.1 refuses it unless spark.sql.collation.schemaLevel.enabled
		// (an internal flag, on in Spark's own tests): Thund accepts it.
		p.pos += 2
		p.ident(anyIdent)
	default:
		p.fail("SET, UNSET or DEFAULT COLLATION")
	}
}

// alterTable reads ALTER TABLE | VIEW name and one of its actions.
func (p *parser) alterTable(c *cmd, view bool) {
	c.o.Kind = "ALTER TABLE"
	if view {
		c.o.Kind = "ALTER VIEW"
	}
	p.pos += 2
	c.name()
	// the actions of both tables and views
	switch {
	case p.atSeq("RENAME", "TO"):
		p.pos += 2
		c.multipart()
		return
	case p.atSeq("SET", "TBLPROPERTIES"):
		p.pos += 2
		c.props(propsValues, reservedTable, "UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY")
		return
	case p.atSeq("UNSET", "TBLPROPERTIES"):
		p.pos += 2
		p.otherIfExists()
		c.props(propsKeys, reservedTable, "UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY")
		return
	case p.at("ADD") && (isKw(p.peek(1), "PARTITION") || p.atSeq("ADD", "IF")):
		p.pos++
		c.ifNotExists(true)
		if !p.at("PARTITION") {
			p.fail("PARTITION")
		}
		for p.at("PARTITION") {
			c.partition(true)
			if p.accept("LOCATION") {
				p.stringLit()
			}
		}
		if view {
			c.rank = -1
			c.invalidStatement(c.whole(), "ALTER VIEW ... ADD PARTITION", "is not valid: views have no partitions")
		}
		return
	case p.at("DROP") && (isKw(p.peek(1), "PARTITION") || p.atSeq("DROP", "IF", "EXISTS", "PARTITION")):
		p.pos++
		p.otherIfExists()
		c.partition(true)
		for p.acceptKind(lex.Comma) {
			c.partition(true)
		}
		p.accept("PURGE")
		if view {
			c.rank = -1
			c.invalidStatement(c.whole(), "ALTER VIEW ... DROP PARTITION", "is not valid: views have no partitions")
		}
		return
	}
	if view {
		switch {
		case p.atSeq("WITH", "SCHEMA"):
			p.pos += 2
			switch {
			case p.at("BINDING"), p.at("COMPENSATION"), p.at("EVOLUTION"):
				p.pos++
			case p.atSeq("TYPE", "EVOLUTION"):
				p.pos += 2
			default:
				p.fail("BINDING, COMPENSATION, EVOLUTION or TYPE EVOLUTION")
			}
		default:
			p.accept("AS")
			if !p.startsQuery() {
				p.fail("AS query, RENAME TO, SET TBLPROPERTIES, UNSET TBLPROPERTIES or WITH SCHEMA")
			}
			c.query()
		}
		return
	}
	switch {
	case p.at("ADD") && (isKw(p.peek(1), "COLUMN") || isKw(p.peek(1), "COLUMNS")):
		p.pos += 2
		paren := p.acceptKind(lex.LeftParen)
		for {
			p.colTypeWithPosition(c, false)
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		if paren {
			p.expectKind(lex.RightParen)
		}
	case p.at("ADD"):
		p.pos++
		k := p.tableConstraint()
		if k.Check != nil {
			c.o.Exprs = append(c.o.Exprs, k.Check)
		}
		if k.Ref != nil {
			c.o.Names = append(c.o.Names, k.Ref)
		}
	case p.atSeq("RENAME", "COLUMN"):
		p.pos += 2
		c.column(p.multipart())
		p.expect("TO")
		p.errIdent(anyIdent)
	case p.atSeq("DROP", "CONSTRAINT"):
		p.pos += 2
		p.otherIfExists()
		p.ident(anyIdent)
		if !p.accept("RESTRICT") {
			p.accept("CASCADE")
		}
	case p.at("DROP") && (isKw(p.peek(1), "COLUMN") || isKw(p.peek(1), "COLUMNS")):
		p.pos += 2
		p.otherIfExists()
		paren := p.acceptKind(lex.LeftParen)
		for {
			c.column(p.multipart())
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		if paren {
			p.expectKind(lex.RightParen)
		}
	case p.at("ALTER"):
		p.pos++
		p.alterColumns(c, "ALTER")
	case p.at("CHANGE"):
		save := p.pos
		t := c.clone()
		if p.try(func() { p.pos++; p.alterColumns(t, "CHANGE"); p.otherExpectEnd() }) {
			*c.o, c.sem = *t.o, t.sem
			return
		}
		p.pos = save
		p.hiveChange(c, nil)
	case p.atSeq("RECOVER", "PARTITIONS"):
		p.pos += 2
	case p.atSeq("CLUSTER", "BY", "NONE"):
		p.pos += 3
	case p.atSeq("CLUSTER", "BY"):
		p.pos += 2
		p.expectKind(lex.LeftParen)
		for _, n := range p.multipartList() {
			c.column(n)
		}
		p.expectKind(lex.RightParen)
	case p.atSeq("DEFAULT", "COLLATION"):
		p.pos += 2
		p.ident(anyIdent)
	default:
		var spec *ast.Range
		if p.at("PARTITION") && p.peek(1).Kind == lex.LeftParen {
			save, ps := p.pos, p.tok().Start
			p.partitionSpec()
			rename := p.atSeq("RENAME", "TO")
			p.pos = save
			if rename {
				c.partition(true)
				p.pos += 2
				c.partition(true)
				return
			}
			c.partition(false)
			r := p.rangeFrom(ps)
			spec = &r
		}
		p.alterTablePartitioned(c, spec)
	}
}

// indexAt is the index of the token that starts at offset off.
func (p *parser) indexAt(off int) int {
	for i, t := range p.toks {
		if t.Start >= off {
			return i
		}
	}
	return len(p.toks) - 1
}

// alterTablePartitioned reads the actions that may follow a partition
// spec (spec, nil without one): CHANGE [COLUMN] (Hive style), REPLACE
// COLUMNS (...), SET SERDE | SERDEPROPERTIES, SET LOCATION.
func (p *parser) alterTablePartitioned(c *cmd, spec *ast.Range) {
	switch {
	case p.at("CHANGE"):
		p.hiveChange(c, spec)
	case p.atSeq("REPLACE", "COLUMNS"):
		p.pos += 2
		p.expectKind(lex.LeftParen)
		for {
			p.colTypeWithPosition(c, true)
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		p.expectKind(lex.RightParen)
		if spec != nil {
			c.rank = -1
			c.invalidStatement(c.whole(), "ALTER TABLE ... PARTITION ... REPLACE COLUMNS", "is not valid: columns belong to the table, not to a partition")
		}
	case p.atSeq("SET", "SERDE"):
		p.pos += 2
		p.stringLit()
		if p.acceptSeq("WITH", "SERDEPROPERTIES") {
			c.props(propsValues, nil, "")
		}
		p.valuedSpec(c, spec)
	case p.atSeq("SET", "SERDEPROPERTIES"):
		p.pos += 2
		c.props(propsValues, nil, "")
		p.valuedSpec(c, spec)
	case p.atSeq("SET", "LOCATION"):
		p.pos += 2
		p.stringLit()
		p.valuedSpec(c, spec)
	default:
		p.fail("an ALTER TABLE action")
	}
}

// valuedSpec records Spark's refusal of a partition spec without values
// where the command needs them.
func (p *parser) valuedSpec(c *cmd, spec *ast.Range) {
	if spec == nil {
		return
	}
	save := p.pos
	p.pos = p.indexAt(spec.Start)
	t := &cmd{p: p, o: &ast.Other{}, start: c.start}
	t.partition(true)
	c.sem.merge(&t.sem)
	p.pos = save
}

// colTypeWithPosition reads name type [NOT NULL | DEFAULT x | COMMENT
// '...' | FIRST | AFTER col]... of ADD COLUMNS (replace: of REPLACE
// COLUMNS), with Spark's checks.
func (p *parser) colTypeWithPosition(c *cmd, replace bool) {
	n := p.multipart()
	c.column(n)
	c.dataType()
	seen := map[string]bool{}
	alter := "ADD"
	if replace {
		alter = "REPLACE"
		if len(n.Parts) > 1 {
			c.refuse(n.Range, "_LEGACY_ERROR_TEMP_0034", "Replacing with a nested column is not supported in Hive-style REPLACE COLUMNS")
		}
	}
	for {
		os := p.tok().Start
		opt := ""
		switch {
		case p.atNot() && isKw(p.peek(1), "NULL"):
			c.acceptNot("NULL")
			opt = "NOT NULL"
		case p.at("DEFAULT"):
			p.pos++
			c.expr()
			opt = "DEFAULT"
		case p.at("COMMENT"):
			p.pos++
			p.stringLit()
			opt = "COMMENT"
		case p.at("FIRST"):
			p.pos++
			opt = "FIRST|AFTER"
		case p.at("AFTER"):
			p.pos++
			p.errIdent(anyIdent)
			opt = "FIRST|AFTER"
		}
		if opt == "" {
			break
		}
		r := p.rangeFrom(os)
		if replace {
			switch opt {
			case "NOT NULL":
				c.refuse(r, "_LEGACY_ERROR_TEMP_0034", "NOT NULL is not supported in Hive-style REPLACE COLUMNS")
			case "FIRST|AFTER":
				c.refuse(r, "_LEGACY_ERROR_TEMP_0034", "Column position is not supported in Hive-style REPLACE COLUMNS")
			case "DEFAULT":
				c.refuse(r, "UNSUPPORTED_DEFAULT_VALUE.WITHOUT_SUGGESTION", "DEFAULT values are not supported in REPLACE COLUMNS")
			}
		}
		if seen[opt] && (!replace || opt == "COMMENT") {
			c.refuse(r, "ALTER_TABLE_COLUMN_DESCRIPTOR_DUPLICATE",
				"ALTER TABLE "+alter+" COLUMN "+n.Last().Name+" has "+opt+" twice; write it once")
		}
		seen[opt] = true
	}
}

// alterColumns reads the column specs of ALTER TABLE t ALTER | CHANGE
// [COLUMN] col action, ...
func (p *parser) alterColumns(c *cmd, verb string) {
	if p.at("COLUMN") && p.canIdent(p.peek(1), anyIdent) {
		save := p.pos
		t := c.clone()
		if p.try(func() { p.pos++; p.alterColumnSpecs(t, verb); p.otherExpectEnd() }) {
			*c.o, c.sem = *t.o, t.sem
			return
		}
		p.pos = save
	}
	p.alterColumnSpecs(c, verb)
}

// alterColumnSpecs reads col action, ...
func (p *parser) alterColumnSpecs(c *cmd, verb string) {
	for {
		n := p.multipart()
		c.column(n)
		switch {
		case p.at("TYPE"):
			p.pos++
			c.dataType()
		case p.at("COMMENT"):
			p.pos++
			p.stringLit()
		case p.at("FIRST"):
			p.pos++
		case p.at("AFTER"):
			p.pos++
			p.errIdent(anyIdent)
		case (p.at("SET") || p.at("DROP")) && (isKw(p.peek(1), "NOT") || p.peek(1).Kind == lex.Bang) && isKw(p.peek(2), "NULL"):
			p.pos++
			c.acceptNot("NULL")
		case p.atSeq("SET", "DEFAULT"):
			p.pos += 2
			c.expr()
		case p.atSeq("DROP", "DEFAULT"):
			p.pos += 2
		default:
			c.notAllowed(c.whole(), "ALTER TABLE table "+verb+" COLUMN requires a TYPE, a SET/DROP, a COMMENT, or a FIRST/AFTER")
		}
		if !p.acceptKind(lex.Comma) {
			return
		}
	}
}

// hiveChange reads the Hive-style CHANGE [COLUMN] col name type [NOT
// NULL] [COMMENT '...'] [FIRST | AFTER c] (spec: the partition spec
// before it, which Spark refuses).
func (p *parser) hiveChange(c *cmd, spec *ast.Range) {
	start := p.tok().Start
	p.expect("CHANGE")
	if p.at("COLUMN") && p.canIdent(p.peek(1), anyIdent) && p.peek(2).Kind != lex.Comma {
		save := p.pos
		if !p.try(func() { p.pos++; p.hiveChangeRest(c, start, spec); p.otherExpectEnd() }) {
			p.pos = save
			p.hiveChangeRest(c, start, spec)
		}
		return
	}
	p.hiveChangeRest(c, start, spec)
}

// hiveChangeRest reads what follows CHANGE [COLUMN].
func (p *parser) hiveChangeRest(c *cmd, start int, spec *ast.Range) {
	n := p.multipart()
	c.column(n)
	to := p.errIdent(anyIdent)
	c.dataType()
	notNull := false
	if p.atNot() && isKw(p.peek(1), "NULL") {
		p.pos += 2
		notNull = true
	}
	if p.accept("COMMENT") {
		p.stringLit()
	}
	if p.accept("FIRST") {
	} else if p.accept("AFTER") {
		p.errIdent(anyIdent)
	}
	switch {
	case spec != nil:
		c.rank = -1
		c.invalidStatement(c.whole(), "ALTER TABLE ... PARTITION ... CHANGE COLUMN", "is not valid: columns belong to the table, not to a partition")
	case !strings.EqualFold(n.Last().Name, to.Name):
		c.refuse(p.rangeFrom(start), "_LEGACY_ERROR_TEMP_0034",
			"Renaming column is not supported in Hive-style ALTER COLUMN, please run RENAME COLUMN instead")
	case notNull:
		c.refuse(p.rangeFrom(start), "_LEGACY_ERROR_TEMP_0034",
			"NOT NULL is not supported in Hive-style ALTER COLUMN, please run ALTER COLUMN ... SET/DROP NOT NULL instead")
	}
}

// alterTableNative recognises the Hive forms of ALTER TABLE that Spark
// parses and refuses: ALTER TABLE [db.]t then NOT CLUSTERED, CLUSTERED
// BY, NOT SORTED, SKEWED BY, NOT SKEWED, NOT STORED AS DIRECTORIES, SET
// SKEWED LOCATION, EXCHANGE | ARCHIVE | UNARCHIVE PARTITION, TOUCH, or
// [PARTITION (...)] COMPACT | CONCATENATE | SET FILEFORMAT | REPLACE
// COLUMNS.
func (p *parser) alterTableNative(c *cmd) bool {
	kws := []string{p.next().Text, p.next().Text}
	ok := p.try(func() {
		p.errIdent(anyIdent)
		if p.acceptKind(lex.Dot) {
			p.errIdent(anyIdent)
		}
	})
	if !ok {
		return false
	}
	seqs := [][]string{{"NOT", "CLUSTERED"}, {"CLUSTERED", "BY"}, {"NOT", "SORTED"}, {"SKEWED", "BY"},
		{"NOT", "SKEWED"}, {"NOT", "STORED", "AS", "DIRECTORIES"}, {"SET", "SKEWED", "LOCATION"},
		{"EXCHANGE", "PARTITION"}, {"ARCHIVE", "PARTITION"}, {"UNARCHIVE", "PARTITION"}, {"TOUCH"}}
	for _, s := range seqs {
		if p.atSeq(s...) {
			for i := range s {
				kws = append(kws, p.peek(i).Text)
			}
			p.nativeRefuse(c, kws)
			return true
		}
	}
	if p.at("PARTITION") && p.peek(1).Kind == lex.LeftParen {
		if !p.try(func() { p.partitionSpec() }) {
			return false
		}
	}
	for _, s := range [][]string{{"COMPACT"}, {"CONCATENATE"}, {"SET", "FILEFORMAT"}, {"REPLACE", "COLUMNS"}} {
		if p.atSeq(s...) {
			for i := range s {
				kws = append(kws, p.peek(i).Text)
			}
			p.nativeRefuse(c, kws)
			return true
		}
	}
	return false
}
