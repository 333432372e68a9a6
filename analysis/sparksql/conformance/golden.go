package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ParseExceptionClass is the exception Spark's SQL parser throws, both for
// a grammar error and for what its AST builder refuses.
const ParseExceptionClass = "org.apache.spark.sql.catalyst.parser.ParseException"

// Outcome is what Spark made of one statement, as far as parsing goes.
type Outcome struct {
	// Parsed is false when the statement itself threw a ParseException:
	// a grammar error (PARSE_SYNTAX_ERROR, PARSE_EMPTY_STATEMENT, ...) or
	// an error raised while building the plan from the parse tree
	// (INVALID_SQL_SYNTAX.*, INVALID_TYPED_LITERAL, "Operation not
	// allowed" as _LEGACY_ERROR_TEMP_*, ...). Rows, analysis errors and
	// runtime errors all mean Spark parsed the statement, and so does a
	// ParseException whose query context names another text (the string
	// that EXECUTE IMMEDIATE runs).
	Parsed bool
	// Class is the error class of the ParseException ("" for one without
	// the JSON form, and for a statement that parsed).
	Class string
	// Threw is the exception class a parsed statement still threw (an
	// AnalysisException, a runtime error, a nested ParseException), or ""
	// when it returned its result.
	Threw string
	// NestedClass is the error class of a ParseException raised by a
	// nested text (EXECUTE IMMEDIATE's), for a statement that parsed.
	NestedClass string
}

// String describes the outcome briefly, without any query text.
func (o Outcome) String() string {
	if !o.Parsed {
		if o.Class == "" {
			return "rejects"
		}
		return "rejects (" + o.Class + ")"
	}
	switch {
	case o.NestedClass != "":
		return "parses (the text it runs does not: " + o.NestedClass + ")"
	case o.Threw != "":
		return "parses (then " + shortClass(o.Threw) + ")"
	}
	return "parses"
}

// shortClass drops a Java class name's package.
func shortClass(c string) string {
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}

// Query is one query of a golden file.
type Query struct {
	// Ordinal is the query's 1-based position in its golden file.
	Ordinal int
	// Line is the 1-based line of the golden file its text starts on.
	Line int
	// Text is the statement exactly as Spark ran it.
	Text string
	// Spark is what Spark did with it.
	Spark Outcome
	// Schema is the "-- !query schema" section of a results/ golden file
	// (Spark's catalogString of the result, "struct<a:int>"), "" when it
	// has none.
	Schema string
	// Output is the "-- !query output" section: the rows as Spark's
	// suite printed them (values tab-separated, one row a line) or the
	// error it raised; HasOutput says whether the section is there.
	Output    string
	HasOutput bool
}

// The golden files' section markers. A block is "-- !query", the query's
// text, then the sections: "-- !query schema" and "-- !query output" in
// results/, "-- !query analysis" in analyzer-results/.
const (
	markQuery    = "-- !query"
	markSchema   = "-- !query schema"
	markOutput   = "-- !query output"
	markAnalysis = "-- !query analysis"
)

// javaException matches a first output line that names a thrown Java or
// Scala exception class.
var javaException = regexp.MustCompile(`^(?:[a-z_][a-z0-9_]*\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error|Throwable)$`)

// ParseGolden reads a golden file of Spark's SQLQueryTestSuite (from
// results/ or analyzer-results/): every query in order, with what Spark
// made of it. Lines before the first "-- !query" are the file's header.
func ParseGolden(text string) ([]Query, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []Query
	i := 0
	for i < len(lines) && lines[i] != markQuery {
		if strings.HasPrefix(lines[i], markQuery) {
			return nil, fmt.Errorf("golden line %d: section marker %q before any query", i+1, lines[i])
		}
		i++
	}
	for i < len(lines) {
		// lines[i] is "-- !query".
		start := i + 1
		j := start
		for j < len(lines) && !strings.HasPrefix(lines[j], markQuery) {
			j++
		}
		if j == len(lines) || lines[j] == markQuery {
			return nil, fmt.Errorf("golden line %d: query %d has no schema, output or analysis section", i+1, len(out)+1)
		}
		q := Query{Ordinal: len(out) + 1, Line: start + 1, Text: strings.Join(lines[start:j], "\n")}
		var verdict []string
		// The sections, up to the next query.
		for j < len(lines) && lines[j] != markQuery {
			mark := lines[j]
			if mark != markSchema && mark != markOutput && mark != markAnalysis {
				return nil, fmt.Errorf("golden line %d: unknown section marker %q", j+1, mark)
			}
			k := j + 1
			for k < len(lines) && !strings.HasPrefix(lines[k], markQuery) {
				k++
			}
			if mark == markOutput || (mark == markAnalysis && verdict == nil) {
				verdict = lines[j+1 : k]
			}
			switch mark {
			case markSchema:
				q.Schema = strings.Join(trimSeparator(lines[j+1:k]), "\n")
			case markOutput:
				q.Output, q.HasOutput = strings.Join(trimSeparator(lines[j+1:k]), "\n"), true
			}
			j = k
		}
		if verdict == nil {
			return nil, fmt.Errorf("golden line %d: query %d has no output or analysis section", i+1, q.Ordinal)
		}
		o, err := outcome(verdict)
		if err != nil {
			return nil, fmt.Errorf("golden line %d: query %d: %w", i+1, q.Ordinal, err)
		}
		q.Spark = o
		out = append(out, q)
		i = j
	}
	return out, nil
}

// trimSeparator drops the two empty lines the suite writes between one
// query's block and the next (and the file's final newline).
func trimSeparator(lines []string) []string {
	for n := 0; n < 2 && len(lines) > 0 && lines[len(lines)-1] == ""; n++ {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// sparkError is the part of Spark's JSON error form the harness reads.
type sparkError struct {
	ErrorClass   string `json:"errorClass"`
	QueryContext []struct {
		ObjectType string `json:"objectType"`
	} `json:"queryContext"`
}

// outcome reads an output (or analysis) section.
func outcome(lines []string) (Outcome, error) {
	if len(lines) == 0 || !javaException.MatchString(lines[0]) {
		return Outcome{Parsed: true}, nil
	}
	if lines[0] != ParseExceptionClass {
		return Outcome{Parsed: true, Threw: lines[0]}, nil
	}
	// The JSON form: from a line "{" to the first line "}".
	if len(lines) < 2 || lines[1] != "{" {
		return Outcome{}, nil
	}
	end := 2
	for end < len(lines) && lines[end] != "}" {
		end++
	}
	if end == len(lines) {
		return Outcome{}, fmt.Errorf("ParseException's JSON is not closed")
	}
	var e sparkError
	if err := json.Unmarshal([]byte(strings.Join(lines[1:end+1], "\n")), &e); err != nil {
		return Outcome{}, fmt.Errorf("ParseException's JSON: %w", err)
	}
	if len(e.QueryContext) > 0 && e.QueryContext[0].ObjectType != "" {
		return Outcome{Parsed: true, Threw: lines[0], NestedClass: e.ErrorClass}, nil
	}
	return Outcome{Class: e.ErrorClass}, nil
}
