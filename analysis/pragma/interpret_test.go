package pragma

import (
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// interpret scans text's header and interprets it, returning every
// diagnostic (syntax ones first).
func interpret(text string) (Block, Settings, []ir.Diagnostic) {
	b := ScanHeader("f.sql", text)
	s, ds := Interpret("f.sql", b)
	return b, s, append(append([]ir.Diagnostic(nil), b.Diags...), ds...)
}

func TestInterpretErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		code ir.Code
		sev  ir.Severity
		at   string   // text[Start:End] of the diagnostic
		msg  []string // substrings of the message
	}{
		// Keys.
		{"unknown key suggests", "-- @expct.valid: x > 0", ir.CodePragmaUnknown, ir.Warning, "@expct",
			[]string{`unknown pragma key "expct"`, `did you mean "expect"?`}},
		{"unknown key case", "-- @Kind: table", ir.CodePragmaUnknown, ir.Warning, "@Kind", []string{`did you mean "kind"?`}},
		{"unknown key prefix", "-- @partition: a", ir.CodePragmaUnknown, ir.Warning, "@partition", []string{`did you mean "partition_by"?`}},
		{"unknown key lists keys", "-- @zzzz: 1", ir.CodePragmaUnknown, ir.Warning, "@zzzz",
			[]string{"known keys: kind, name, comment", "expect.NAME", "backends"}},
		{"family without name", "-- @expect: x > 0", ir.CodePragmaSyntax, ir.Error, "@expect", []string{"@expect.NAME"}},
		{"sample without name", "-- @sample: data/x.csv", ir.CodePragmaSyntax, ir.Error, "@sample", []string{"@sample.NAME"}},
		{"name on plain key", "-- @kind.x: table", ir.CodePragmaSyntax, ir.Error, ".x", []string{`"@kind" takes no ".NAME"`}},
		{"expect name not identifier", "-- @expect.valid-amount: x > 0", ir.CodePragmaSyntax, ir.Error, "valid-amount", []string{"identifier"}},
		{"sample name not identifier", "-- @sample.a-b: x.csv", ir.CodePragmaSyntax, ir.Error, "a-b", []string{"identifier"}},
		{"sample name qualified too deep", "-- @sample.a.b.c.d: x.csv", ir.CodePragmaSyntax, ir.Error, "a.b.c.d", []string{"up to two"}},
		{"property name trailing dot", "-- @property.delta.: x", ir.CodePragmaSyntax, ir.Error, "delta.", []string{"dot-separated"}},
		{"bare key", "-- @kind", ir.CodePragmaValue, ir.Error, "@kind", []string{"needs a value", "materialized_view"}},
		{"empty value", "-- @trigger:   ", ir.CodePragmaValue, ir.Error, "@trigger:", []string{"empty value", "available_now"}},

		// kind, output_mode.
		{"kind typo", "-- @kind: materialised_view", ir.CodePragmaValue, ir.Error, "materialised_view",
			[]string{`"materialised_view"`, "did you mean materialized_view", "streaming_table"}},
		{"kind with space", "-- @kind: materialized view", ir.CodePragmaValue, ir.Error, "materialized view", []string{"did you mean materialized_view"}},
		{"kind extra word", "-- @kind: table  extra words ", ir.CodePragmaValue, ir.Error, "extra words", []string{"unexpected"}},
		{"output mode", "-- @output_mode: upsert", ir.CodePragmaValue, ir.Error, "upsert",
			[]string{`"upsert"`, "append, update, complete", "did you mean update"}},

		// name, flow, target.
		{"name starts with digit", "-- @name: 1bad name", ir.CodePragmaValue, ir.Error, "1bad", []string{`"1bad"`, "identifier", "backtick"}},
		{"name with space", "-- @name: my table", ir.CodePragmaValue, ir.Error, "table", []string{"backticks", "`my table`"}},
		{"name unterminated backtick", "-- @name: `abc", ir.CodePragmaValue, ir.Error, "`", []string{"unterminated backtick"}},
		{"flow bad", "-- @flow: a-b", ir.CodePragmaValue, ir.Error, "-b", []string{"unexpected"}},
		{"target bad", "-- @target: (x)", ir.CodePragmaValue, ir.Error, "(", []string{"invalid target dataset name"}},
		{"qualified trailing dot", "-- @target: db.", ir.CodePragmaValue, ir.Error, ".", []string{"missing target dataset name"}},

		// expect.
		{"expect bad action", "-- @expect.x: amount > 0 ON VIOLATION DELETE ROW", ir.CodePragmaValue, ir.Error, "DELETE ROW",
			[]string{`"DELETE ROW"`, "DROP ROW | FAIL UPDATE", "did you mean DROP ROW"}},
		{"expect missing action", "-- @expect.x: amount > 0 on violation", ir.CodePragmaValue, ir.Error, "on violation", []string{"needs an action"}},
		{"expect empty expression", "-- @expect.x: ON VIOLATION DROP ROW", ir.CodePragmaValue, ir.Error, "ON VIOLATION DROP ROW", []string{"no condition"}},
		{"expect empty value", "-- @expect.x:", ir.CodePragmaValue, ir.Error, "@expect.x:", []string{"empty value"}},
		{"expect unclosed paren", "-- @expect.x: (a > 0 ON VIOLATION DROP ROW", ir.CodePragmaValue, ir.Error, "(", []string{"unclosed '('"}},
		{"expect stray paren", "-- @expect.x: a > 0)", ir.CodePragmaValue, ir.Error, ")", []string{"unmatched ')'"}},
		{"expect second statement", "-- @expect.x: a > 0; COPY t TO 'f'", ir.CodePragmaValue, ir.Error, ";", []string{"one boolean expression"}},
		{"expect comment", "-- @expect.x: /* ( */ a > 0", ir.CodePragmaValue, ir.Error, "/*", []string{"comment"}},
		{"expect line comment", "-- @expect.x: a > 0 -- (", ir.CodePragmaValue, ir.Error, "--", []string{"comment"}},
		{"expect dollar", "-- @expect.x: $$'$$ = 'a'", ir.CodePragmaValue, ir.Error, "$", []string{"dollar-quoted"}},
		{"expect unterminated quote", "-- @expect.x: s = 'abc", ir.CodePragmaValue, ir.Error, "'", []string{"unterminated"}},

		// trigger.
		{"trigger typo", "-- @trigger: avaliable_now", ir.CodePragmaValue, ir.Error, "avaliable_now", []string{"did you mean available_now"}},
		{"trigger no interval", "-- @trigger: processing_time", ir.CodePragmaValue, ir.Error, "processing_time", []string{"needs an interval", "'10 seconds'"}},
		{"trigger bad unit", "-- @trigger: processing_time '10 secs'", ir.CodePragmaValue, ir.Error, "secs",
			[]string{"number and a unit", "second(s), minute(s), hour(s), day(s), millisecond(s)", "did you mean seconds"}},
		{"trigger no number", "-- @trigger: processing_time 'ten seconds'", ir.CodePragmaValue, ir.Error, "ten", []string{"number and a unit"}},
		{"trigger no unit", "-- @trigger: processing_time 10", ir.CodePragmaValue, ir.Error, "10", []string{"missing unit"}},
		{"trigger unterminated", "-- @trigger: processing_time '10 seconds", ir.CodePragmaValue, ir.Error, "'", []string{"unterminated"}},
		{"trigger empty quotes", "-- @trigger: processing_time ''", ir.CodePragmaValue, ir.Error, "''", []string{"empty interval"}},
		{"trigger after quote", "-- @trigger: processing_time '1 second' x", ir.CodePragmaValue, ir.Error, "x", []string{"unexpected"}},
		{"trigger extra", "-- @trigger: once '1 second'", ir.CodePragmaValue, ir.Error, "'1 second'", []string{"only processing_time"}},

		// watermark.
		{"watermark no interval", "-- @watermark: event_time", ir.CodePragmaValue, ir.Error, "event_time", []string{"needs a delay", "event_time, 10 minutes"}},
		{"watermark no comma", "-- @watermark: event_time 10 minutes", ir.CodePragmaValue, ir.Error, "10 minutes", []string{"', INTERVAL'"}},
		{"watermark empty delay", "-- @watermark: ts,", ir.CodePragmaValue, ir.Error, ",", []string{"missing delay"}},
		{"watermark bad unit", "-- @watermark: ts, 10 minuts", ir.CodePragmaValue, ir.Error, "minuts", []string{"did you mean minutes"}},
		{"watermark bad column", "-- @watermark: 9ts, 10 minutes", ir.CodePragmaValue, ir.Error, "9ts", []string{"invalid watermark column"}},

		// cdc.
		{"cdc no sequence", "-- @cdc: keys=(id)", ir.CodePragmaValue, ir.Error, "keys=(id)", []string{"sequence_by"}},
		{"cdc no keys", "-- @cdc: sequence_by=ts", ir.CodePragmaValue, ir.Error, "sequence_by=ts", []string{"keys=("}},
		{"cdc scd 3", "-- @cdc: keys=(id) sequence_by=ts scd=3", ir.CodePragmaValue, ir.Error, "3", []string{`"3"`, "1", "2"}},
		{"cdc unknown option", "-- @cdc: keys=(id) sequence_by=ts squence=1", ir.CodePragmaValue, ir.Error, "squence",
			[]string{`"squence"`, "keys, sequence_by, scd, deletes"}},
		{"cdc option typo", "-- @cdc: keys=(id) sequenceby=ts", ir.CodePragmaValue, ir.Error, "sequenceby", []string{"did you mean sequence_by"}},
		{"cdc no equals", "-- @cdc: keys=(id) ts", ir.CodePragmaValue, ir.Error, "ts", []string{"KEY=VALUE"}},
		{"cdc repeated option", "-- @cdc: keys=(id) keys=(x) sequence_by=ts", ir.CodePragmaValue, ir.Error, "keys", []string{"twice"}},
		{"cdc unclosed keys", "-- @cdc: keys=(id sequence_by=ts", ir.CodePragmaValue, ir.Error, "(", []string{"unclosed"}},
		{"cdc bad key column", "-- @cdc: keys=(id, 2x) sequence_by=ts", ir.CodePragmaValue, ir.Error, "2x", []string{"invalid key column"}},
		{"cdc empty keys", "-- @cdc: keys=() sequence_by=ts", ir.CodePragmaValue, ir.Error, "()", []string{"empty key column list"}},
		{"cdc empty deletes", "-- @cdc: keys=(id) sequence_by=ts deletes=( )", ir.CodePragmaValue, ir.Error, "( )", []string{"empty deletes"}},
		{"cdc missing value", "-- @cdc: keys= sequence_by=ts", ir.CodePragmaValue, ir.Error, "keys=", []string{"missing value"}},
		{"cdc sequence two columns", "-- @cdc: keys=(id) sequence_by=a,b", ir.CodePragmaValue, ir.Error, ",b", []string{"one column"}},

		// source.
		{"source kind", "-- @source: kafkaa topic=x", ir.CodePragmaValue, ir.Error, "kafkaa", []string{`"kafkaa"`, "did you mean kafka", "kafka, files, cdc"}},
		{"source files format", "-- @source: files path=p format=xml", ir.CodePragmaValue, ir.Error, "xml", []string{`"xml"`, "csv, json, parquet, ndjson"}},
		{"source kafka no topic", "-- @source: kafka bootstrap=h:9092", ir.CodePragmaValue, ir.Error, "kafka", []string{"needs topic="}},
		{"source files no format", "-- @source: files path=landing/orders/", ir.CodePragmaValue, ir.Error, "files", []string{"needs format="}},
		{"source kafka bad option", "-- @source: kafka topic=t path=x", ir.CodePragmaValue, ir.Error, "path", []string{"topic, bootstrap, format"}},
		{"source cdc no table", "-- @source: cdc", ir.CodePragmaValue, ir.Error, "cdc", []string{"needs table="}},
		{"source unnamed path", "-- @source: files path=*.csv format=csv", ir.CodePragmaValue, ir.Error, "*.csv", []string{"cannot name the source table"}},
		{"source unterminated", "-- @source: kafka topic='abc", ir.CodePragmaValue, ir.Error, "'", []string{"unterminated"}},
		{"source kafka format", "-- @source: kafka topic=t format=avro", ir.CodePragmaValue, ir.Error, "avro", []string{"json"}},

		// lists, format, backends.
		{"partition empty item", "-- @partition_by: a,,b", ir.CodePragmaValue, ir.Error, ",", []string{"missing column"}},
		{"partition trailing comma", "-- @partition_by: (a, )", ir.CodePragmaValue, ir.Error, ",", []string{"missing column"}},
		{"cluster bad item", "-- @cluster_by: a, b c", ir.CodePragmaValue, ir.Error, "c", []string{"separate columns with commas"}},
		{"cluster unclosed", "-- @cluster_by: (a, b", ir.CodePragmaValue, ir.Error, "(", []string{"unclosed"}},
		{"format two words", "-- @format: delta lake", ir.CodePragmaValue, ir.Error, "lake", []string{"unexpected"}},
		{"format punctuation", "-- @format: del/ta", ir.CodePragmaValue, ir.Error, "/ta", []string{"one word"}},
		{"backend typo", "-- @backends: native, spark-4.4", ir.CodePragmaValue, ir.Error, "spark-4.4",
			[]string{`"spark-4.4"`, "native, spark-4.1, spark-4.2, spark-4.3", "did you mean spark-4."}},
		{"backends empty", "-- @backends: [ , ]", ir.CodePragmaValue, ir.Error, "[ , ]", []string{"empty backend list"}},
		{"backends unclosed", "-- @backends: [native", ir.CodePragmaValue, ir.Error, "[", []string{"unclosed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.text + "\nSELECT 1\n"
			_, _, ds := interpret(text)
			if len(ds) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %+v", len(ds), ds)
			}
			d := ds[0]
			if d.Code != tt.code || d.Severity != tt.sev {
				t.Errorf("got %s %s, want %s %s (%s)", d.Code, d.Severity, tt.code, tt.sev, d.Message)
			}
			if d.Loc.File != "f.sql" {
				t.Errorf("File = %q", d.Loc.File)
			}
			if got := span(t, text, d.Loc); got != tt.at {
				t.Errorf("range text %q, want %q (%s)", got, tt.at, d.Message)
			}
			for _, m := range tt.msg {
				if !strings.Contains(d.Message, m) {
					t.Errorf("message %q lacks %q", d.Message, m)
				}
			}
		})
	}
}

func TestDuplicates(t *testing.T) {
	tests := []struct {
		name, text, first, second string
	}{
		{"plain key", "-- @kind: table\n-- @comment: x\n-- @kind: view\n", "@kind", "@kind"},
		{"expectation name", "-- @expect.valid_amount: a > 0\n-- @expect.other: b\n-- @expect.valid_amount: a > 1\n", "@expect.valid_amount", "@expect.valid_amount"},
		{"sample name", "-- @sample.orders: a.csv\n-- @sample.orders: b.csv\n", "@sample.orders", "@sample.orders"},
		{"conf name", "-- @conf.spark.x: 1\n-- @conf.spark.x: 2\n", "@conf.spark.x", "@conf.spark.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s, ds := interpret(tt.text)
			if len(ds) != 1 {
				t.Fatalf("got %d diagnostics: %+v", len(ds), ds)
			}
			d := ds[0]
			if d.Code != ir.CodePragmaDuplicate || d.Severity != ir.Error {
				t.Errorf("got %s %s", d.Code, d.Severity)
			}
			second := strings.LastIndex(tt.text, tt.second)
			if d.Loc.Start != second || span(t, tt.text, d.Loc) != tt.second {
				t.Errorf("range %d %q, want %d %q", d.Loc.Start, span(t, tt.text, d.Loc), second, tt.second)
			}
			if len(d.Related) != 1 || d.Related[0].Loc.Start != strings.Index(tt.text, tt.first) || span(t, tt.text, d.Related[0].Loc) != tt.first {
				t.Errorf("related %+v", d.Related)
			}
			if !strings.Contains(d.Message, tt.second) {
				t.Errorf("message %q", d.Message)
			}
			_ = s
		})
	}
	// The first value is kept.
	_, s, _ := interpret("-- @kind: table\n-- @kind: view\n")
	if s.Kind != ir.Table {
		t.Errorf("Kind = %q, want the first value", s.Kind)
	}
	// Different names of one family are not duplicates.
	_, s, ds := interpret("-- @expect.a: x > 0\n-- @expect.b: y > 0\n-- @property.a: 1\n-- @property.b: 2\n")
	if len(ds) != 0 || len(s.Expectations) != 2 || len(s.Properties) != 2 {
		t.Errorf("diags %v, settings %+v", ds, s)
	}
}

func TestInterpretValues(t *testing.T) {
	text := strings.Join([]string{
		"-- Doc text.",
		"-- @kind: Streaming_Table",
		"-- @name: `my orders`",
		"-- @comment: 'Orders, cleaned'",
		"-- @flow: orders_flow",
		"-- @target: sales.orders",
		"-- @expect.valid_amount: amount > 0 ON VIOLATION DROP ROW",
		"-- @expect.known_region: region IS NOT NULL",
		"-- @expect.keep: note <> 'on violation fail update' AND (a ON VIOLATION b) on  Violation fail   update",
		"-- @source: kafka topic=orders bootstrap=localhost:9092 format=JSON",
		"-- @trigger: processing_time '10 Seconds'",
		"-- @output_mode: update",
		"-- @watermark: event_time, 10 minutes",
		"-- @cdc: keys=(id, `order line`) sequence_by=updated_at scd=2 deletes=(op = 'D' AND x IN (1, 2))",
		"-- @sample.orders: 'samples/orders small.csv'",
		"-- @sample.customers: data/customers/",
		"-- @partition_by: (order_date, region)",
		"-- @cluster_by: id",
		"-- @format: delta",
		"-- @property.delta.appendOnly: true",
		"-- @conf.spark.sql.shuffle-partitions: 4",
		"-- @backends: [native, Spark-4.2]",
		"SELECT 1",
	}, "\n")
	_, s, ds := interpret(text)
	if len(ds) != 0 {
		t.Fatalf("unexpected diagnostics: %+v", ds)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", what, got, want)
		}
	}
	check("Kind", s.Kind, ir.StreamingTable)
	check("KindLoc", span(t, text, s.KindLoc), "Streaming_Table")
	check("Name", s.Name, "my orders")
	check("NameLoc", span(t, text, s.NameLoc), "`my orders`")
	check("Comment", s.Comment, "Orders, cleaned")
	check("CommentSet", s.CommentSet, true)
	check("Flow", s.Flow, "orders_flow")
	check("FlowLoc", span(t, text, s.FlowLoc), "orders_flow")
	check("Target", s.Target, "sales.orders")
	check("TargetLoc", span(t, text, s.TargetLoc), "sales.orders")

	if len(s.Expectations) != 3 {
		t.Fatalf("expectations %+v", s.Expectations)
	}
	e := s.Expectations
	check("e0", []any{e[0].Name, e[0].SQL, e[0].Action}, []any{"valid_amount", "amount > 0", ir.Drop})
	check("e1", []any{e[1].Name, e[1].SQL, e[1].Action}, []any{"known_region", "region IS NOT NULL", ir.Warn})
	check("e2", []any{e[2].Name, e[2].SQL, e[2].Action}, []any{"keep", "note <> 'on violation fail update' AND (a ON VIOLATION b)", ir.Fail})
	for _, x := range e {
		check("SQLLoc", span(t, text, x.SQLLoc), x.SQL)
		if l := span(t, text, x.Loc); !strings.HasPrefix(l, "@expect."+x.Name) || strings.Contains(l, "\n") {
			t.Errorf("expectation Loc %q", l)
		}
	}

	if s.Source == nil {
		t.Fatal("no source")
	}
	check("Source", *s.Source, ir.SourceSpec{Kind: ir.Kafka, Table: "orders",
		Options: map[string]string{"topic": "orders", "bootstrap": "localhost:9092", "format": "json"}, Loc: s.Source.Loc})
	check("Source.Loc", span(t, text, s.Source.Loc), "kafka topic=orders bootstrap=localhost:9092 format=JSON")
	if s.Trigger == nil {
		t.Fatal("no trigger")
	}
	check("Trigger", []any{s.Trigger.Kind, s.Trigger.Interval}, []any{ir.ProcessingTime, "10 seconds"})
	check("Trigger.Loc", span(t, text, s.Trigger.Loc), "processing_time '10 Seconds'")
	check("OutputMode", s.OutputMode, ir.Update)
	check("OutputLoc", span(t, text, s.OutputLoc), "update")
	if s.Watermark == nil {
		t.Fatal("no watermark")
	}
	check("Watermark", []string{s.Watermark.Column, s.Watermark.Delay, span(t, text, s.Watermark.Loc)}, []string{"event_time", "10 minutes", "event_time, 10 minutes"})
	if s.CDC == nil {
		t.Fatal("no cdc")
	}
	check("CDC", []any{s.CDC.Keys, s.CDC.SequenceBy, s.CDC.SCD, s.CDC.Deletes},
		[]any{[]string{"id", "order line"}, "updated_at", 2, "op = 'D' AND x IN (1, 2)"})
	check("Samples", len(s.Samples), 2)
	check("Sample0", []string{s.Samples[0].Table, s.Samples[0].Path, span(t, text, s.Samples[0].Loc), span(t, text, s.Samples[0].KeyLoc), span(t, text, s.Samples[0].NameLoc)},
		[]string{"orders", "samples/orders small.csv", "'samples/orders small.csv'", "@sample", "orders"})
	check("Sample1", []string{s.Samples[1].Table, s.Samples[1].Path}, []string{"customers", "data/customers/"})
	check("PartitionBy", s.PartitionBy, []string{"order_date", "region"})
	check("ClusterBy", s.ClusterBy, []string{"id"})
	check("Format", s.Format, "delta")
	check("Properties", s.Properties, map[string]string{"delta.appendOnly": "true"})
	check("Conf", s.Conf, map[string]string{"spark.sql.shuffle-partitions": "4"})
	check("Backends", s.Backends, []ir.Backend{ir.Native, ir.Spark42})
	check("BackendsLoc", span(t, text, s.BackendsLoc), "[native, Spark-4.2]")
}

func TestInterpretForms(t *testing.T) {
	tests := []struct {
		line  string
		check func(s Settings) bool
	}{
		{"-- @trigger: available_now", func(s Settings) bool { return s.Trigger.Kind == ir.AvailableNow && s.Trigger.Interval == "" }},
		{"-- @trigger: continuous", func(s Settings) bool { return s.Trigger.Kind == ir.Continuous }},
		{"-- @trigger: ONCE", func(s Settings) bool { return s.Trigger.Kind == ir.Once }},
		{"-- @trigger: processing_time 10 seconds", func(s Settings) bool { return s.Trigger.Interval == "10 seconds" }},
		{`-- @trigger: processing_time "1 minute"`, func(s Settings) bool { return s.Trigger.Interval == "1 minute" }},
		{"-- @trigger: processing_time '1 minutes'", func(s Settings) bool { return s.Trigger.Interval == "1 minute" }},
		{"-- @trigger: processing_time '2 hour'", func(s Settings) bool { return s.Trigger.Interval == "2 hours" }},
		{"-- @trigger: processing_time'500 milliseconds'", func(s Settings) bool { return s.Trigger.Interval == "500 milliseconds" }},
		{"-- @trigger: processing_time '0.5 day'", func(s Settings) bool { return s.Trigger.Interval == "0.5 days" }},
		{"-- @watermark: ts,'5 seconds'", func(s Settings) bool { return s.Watermark.Column == "ts" && s.Watermark.Delay == "5 seconds" }},
		{"-- @watermark: `event time`, 1 hour", func(s Settings) bool { return s.Watermark.Column == "event time" && s.Watermark.Delay == "1 hour" }},
		{"-- @cdc: keys=id sequence_by=ts", func(s Settings) bool {
			return reflect.DeepEqual(s.CDC.Keys, []string{"id"}) && s.CDC.SCD == 1 && s.CDC.Deletes == ""
		}},
		{"-- @cdc: keys=a, b sequence_by=ts deletes=is_deleted", func(s Settings) bool {
			return reflect.DeepEqual(s.CDC.Keys, []string{"a", "b"}) && s.CDC.Deletes == "is_deleted"
		}},
		{"-- @cdc: sequence_by=ts scd=1 keys=(a,b)", func(s Settings) bool { return reflect.DeepEqual(s.CDC.Keys, []string{"a", "b"}) }},
		{"-- @source: files path=landing/orders/*.json format=json", func(s Settings) bool {
			return s.Source.Kind == ir.Files && s.Source.Table == "orders" && s.Source.Options["path"] == "landing/orders/*.json"
		}},
		{"-- @source: files path=data/clicks.ndjson.gz format=ndjson", func(s Settings) bool { return s.Source.Table == "clicks" }},
		{"-- @source: files path=data/clicks.parquet", func(s Settings) bool {
			return s.Source.Table == "clicks" && s.Source.Options["format"] == "parquet"
		}},
		{`-- @source: files path="my data/events" format=CSV`, func(s Settings) bool {
			return s.Source.Table == "events" && s.Source.Options["path"] == "my data/events" && s.Source.Options["format"] == "csv"
		}},
		{"-- @source: cdc table=orders_changes", func(s Settings) bool {
			return s.Source.Kind == ir.CDCFeed && s.Source.Table == "orders_changes"
		}},
		{"-- @partition_by: a, `b c`", func(s Settings) bool { return reflect.DeepEqual(s.PartitionBy, []string{"a", "b c"}) }},
		{"-- @backends: native spark-4.1, native", func(s Settings) bool {
			return reflect.DeepEqual(s.Backends, []ir.Backend{ir.Native, ir.Spark41})
		}},
		{"-- @comment:", func(s Settings) bool { return s.CommentSet && s.Comment == "" }},
		{"-- @comment: it's: fine -- really", func(s Settings) bool { return s.Comment == "it's: fine -- really" }},
		{"-- @expect.x: a > 0 ON VIOLATION drop row", func(s Settings) bool { return s.Expectations[0].Action == ir.Drop }},
		{"-- @expect.x: reason = 'ON VIOLATION DROP ROW'", func(s Settings) bool {
			return s.Expectations[0].Action == ir.Warn && s.Expectations[0].SQL == "reason = 'ON VIOLATION DROP ROW'"
		}},
		{"-- @name: db.`t 1`", func(s Settings) bool { return s.Name == "db.t 1" }},
		{"-- @property.delta.appendOnly: \"a b\"", func(s Settings) bool { return s.Properties["delta.appendOnly"] == "a b" }},
	}
	for _, tt := range tests {
		_, s, ds := interpret(tt.line + "\r\nSELECT 1")
		if len(ds) != 0 {
			t.Errorf("%s: unexpected diagnostics %+v", tt.line, ds)
			continue
		}
		if !tt.check(s) {
			t.Errorf("%s: settings %+v", tt.line, s)
		}
	}
}

func TestKeys(t *testing.T) {
	want := []string{"kind", "name", "comment", "flow", "target", "expect", "source", "trigger", "output_mode",
		"watermark", "cdc", "sample", "partition_by", "cluster_by", "format", "property", "conf", "backends"}
	var got []string
	for _, k := range Keys {
		got = append(got, k.Key)
		if k.Doc == "" || len(k.Values) == 0 {
			t.Errorf("key %s lacks Doc or Values", k.Key)
		}
		dotted := k.Key == "expect" || k.Key == "sample" || k.Key == "property" || k.Key == "conf"
		if k.Dotted != dotted {
			t.Errorf("key %s Dotted = %v", k.Key, k.Dotted)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
	if _, ok := LookupKey("nope"); ok {
		t.Error("LookupKey(nope) found a key")
	}
	// Every key sets something: none is silently ignored.
	values := map[string]string{
		"kind": "table", "name": "n", "comment": "c", "flow": "f", "target": "t", "expect.e": "x > 0",
		"source": "cdc table=t", "trigger": "once", "output_mode": "append", "watermark": "ts, 1 second",
		"cdc": "keys=(k) sequence_by=s", "sample.t": "t.csv", "partition_by": "a", "cluster_by": "b",
		"format": "parquet", "property.p": "1", "conf.c": "2", "backends": "native",
	}
	var lines []string
	for _, k := range Keys {
		key := k.Key
		if k.Dotted {
			key += map[string]string{"expect": ".e", "sample": ".t", "property": ".p", "conf": ".c"}[k.Key]
		}
		v, ok := values[key]
		if !ok {
			t.Fatalf("no test value for %s", key)
		}
		lines = append(lines, "-- @"+key+": "+v)
	}
	_, s, ds := interpret(strings.Join(lines, "\n"))
	if len(ds) != 0 {
		t.Fatalf("diagnostics %+v", ds)
	}
	zero := reflect.ValueOf(Settings{})
	sv := reflect.ValueOf(s)
	for i := 0; i < sv.NumField(); i++ {
		if reflect.DeepEqual(sv.Field(i).Interface(), zero.Field(i).Interface()) {
			t.Errorf("Settings.%s not set", sv.Type().Field(i).Name)
		}
	}
}

func TestNearest(t *testing.T) {
	tests := []struct {
		word, want string
		ok         bool
	}{
		{"expct", "expect", true},
		{"trigger", "trigger", true},
		{"outputmode", "output_mode", true},
		{"watermarks", "watermark", true},
		{"x", "", false},
		{"completely_different", "", false},
	}
	for _, tt := range tests {
		got, ok := nearest(tt.word, keyList())
		if got != tt.want || ok != tt.ok {
			t.Errorf("nearest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
}

// Huge values give short messages, quickly, with exact ranges.
func TestHugeValues(t *testing.T) {
	long := strings.Repeat("x", 100000)
	for _, k := range Keys {
		key := k.Key
		if k.Dotted {
			key += ".n"
		}
		for _, v := range []string{long, "keys=" + strings.Repeat("a,", 50000), strings.Repeat("(", 50000)} {
			text := "-- @" + key + ": " + v + "\n"
			_, _, ds := interpret(text)
			for _, d := range ds {
				span(t, text, d.Loc)
				if len(d.Message) > 1000 {
					t.Errorf("@%s: message of %d bytes", key, len(d.Message))
				}
			}
		}
	}
	_, _, ds := interpret("-- @" + long + ": 1\n")
	if len(ds) != 1 || ds[0].Code != ir.CodePragmaUnknown || len(ds[0].Message) > 1000 {
		t.Errorf("unknown long key: %+v", ds)
	}
}
