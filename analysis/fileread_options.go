package analysis

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// FileRead is how a read of files written in SQL reads them, from its
// call as written: `read_files(path, format => 'json', k => v)`,
// `cloud_files(path, 'json', map('k', 'v'))`, or Spark SQL on files
// (json.`path`); or how Databricks' `read_kafka(subscribe => 'topic',
// ...)` reads a Kafka topic.
type FileRead struct {
	// Format is the file format, lower case ("" when the call does not
	// say: read_files then detects it from the files).
	Format string
	// Options are the reader options by name as written, their values
	// the literals given (an option whose value is not a literal is left
	// out and Computed is set).
	Options map[string]string
	// AutoLoader is set for cloud_files, Databricks' Auto Loader, whose
	// inference differs from Spark's reader (cloudFiles.inferColumnTypes).
	AutoLoader bool
	// Schema is set when the call gives the schema (schema => ...): the
	// files' schema is then not inferred.
	Schema bool
	// Computed is set when an option's value is computed, so the options
	// are not all known.
	Computed bool
	// Kafka is set for Databricks' read_kafka(...), a read of a Kafka
	// topic rather than of files (Format is then "kafka").
	Kafka bool
}

// FileReadOf reads call, the text of a read of files as a flow's
// reference holds it (ir.Ref.Loc of a Ref with a Path); ok is false for
// text that is not such a read.
func FileReadOf(call string) (fr FileRead, ok bool) {
	call = strings.TrimSpace(call)
	if call == "" {
		return fr, false
	}
	if strings.HasPrefix(strings.ToUpper(call), "STREAM") {
		call = strings.TrimSpace(call[len("STREAM"):])
	}
	if i := strings.IndexByte(call, '.'); i > 0 && i+1 < len(call) && call[i+1] == '`' {
		// json.`path`: the format is the prefix; no options.
		switch f := strings.ToLower(call[:i]); f {
		case "json", "csv", "parquet", "orc", "text", "avro", "delta":
			return FileRead{Format: f, Options: map[string]string{}}, true
		}
		return fr, false
	}
	x, errs := parser.ParseExpression(call, parser.Options{})
	c, isCall := x.(*ast.Call)
	if len(errs) > 0 || !isCall || c.Name == nil || len(c.Args) == 0 {
		return fr, false
	}
	fr.Options = map[string]string{}
	switch strings.ToLower(c.Name.String()) {
	case "read_kafka":
		// Databricks' read_kafka takes its options as named arguments
		// only (bootstrapServers => ..., subscribe => ...).
		fr.Format, fr.Kafka = "kafka", true
		for _, a := range c.Args {
			na, named := a.(*ast.NamedArg)
			if !named || na.Name == nil {
				fr.Computed = true
				continue
			}
			if v, lit := stringValue(na.Value); lit {
				fr.Options[na.Name.Name] = v
			} else {
				fr.Computed = true
			}
		}
	case "read_files":
		for _, a := range c.Args[1:] {
			na, named := a.(*ast.NamedArg)
			if !named || na.Name == nil {
				continue
			}
			key := na.Name.Name
			switch strings.ToLower(key) {
			case "format":
				if v, lit := stringValue(na.Value); lit {
					fr.Format = strings.ToLower(v)
				} else {
					fr.Computed = true
				}
				continue
			case "schema":
				fr.Schema = true
				continue
			}
			if v, lit := stringValue(na.Value); lit {
				fr.Options[key] = v
			} else {
				fr.Computed = true
			}
		}
	case "cloud_files":
		fr.AutoLoader = true
		if len(c.Args) > 1 {
			if v, lit := stringValue(c.Args[1]); lit {
				fr.Format = strings.ToLower(v)
			} else {
				fr.Computed = true
			}
		}
		if len(c.Args) > 2 {
			m, isMap := c.Args[2].(*ast.Call)
			if !isMap || m.Name == nil || !strings.EqualFold(m.Name.String(), "map") || len(m.Args)%2 != 0 {
				fr.Computed = true
				break
			}
			for i := 0; i+1 < len(m.Args); i += 2 {
				k, klit := stringValue(m.Args[i])
				v, vlit := stringValue(m.Args[i+1])
				switch {
				case !klit || !vlit:
					fr.Computed = true
				case strings.EqualFold(k, "schema"):
					fr.Schema = true
				default:
					fr.Options[k] = v
				}
			}
		}
	default:
		return FileRead{}, false
	}
	return fr, true
}

// stringValue is the value of a string, number or boolean literal as
// Spark passes it to a reader option ("true" for true).
func stringValue(x ast.Expr) (string, bool) {
	l, ok := x.(*ast.Literal)
	if !ok {
		return "", false
	}
	switch l.Kind {
	case ast.LitString:
		if l.Str != nil {
			return l.Str.Value, true
		}
	case ast.LitTrue:
		return "true", true
	case ast.LitFalse:
		return "false", true
	case ast.LitInteger, ast.LitDecimal, ast.LitDouble, ast.LitBigInt:
		return l.Text, true
	}
	return "", false
}

// InfersColumnTypes reports whether Auto Loader types the columns it
// infers (cloudFiles.inferColumnTypes, off by default: every column of a
// JSON or CSV file is then a STRING, as Databricks documents); a read
// that is not Auto Loader's always does.
func (fr FileRead) InfersColumnTypes() bool {
	if !fr.AutoLoader {
		return true
	}
	for k, v := range fr.Options {
		if strings.EqualFold(k, "cloudFiles.inferColumnTypes") || strings.EqualFold(k, "inferColumnTypes") {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return false
}
