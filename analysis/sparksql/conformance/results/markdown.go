package results

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteMarkdown writes the results part of docs/conformance.md: the
// totals by class, the causes, a table per golden file and every defect
// by file#ordinal. No query text.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	n := r.SelfContained()
	p("\n# Results: native runs against Spark's recorded output\n\n")
	p("| class | queries | share |\n|---|---:|---:|\n")
	p("| equal (schema and rows) | %d | %s |\n", r.Counts[Equal], pct(r.Counts[Equal], n))
	p("| refused before running (not-portable) | %d | %s |\n", r.Counts[Refused], pct(r.Counts[Refused], n))
	p("| error where Spark also errors | %d | %s |\n", r.Counts[BothError], pct(r.Counts[BothError], n))
	p("| error where Spark returns rows (a defect, not silent) | %d | %s |\n", r.Counts[NativeError], pct(r.Counts[NativeError], n))
	p("| **silent mismatch** (a defect) | %d | %s |\n", r.Counts[Mismatch], pct(r.Counts[Mismatch], n))
	p("| self-contained queries | %d | |\n\n", n)
	p("- Of the %d queries where both fail, %d fail with the error class Spark raises.\n", r.Counts[BothError], r.SameClass)
	rows, rowsEqual := r.SparkRows()
	p("- Spark returns rows for %d of the self-contained queries (it raises an error for the other %d); %d of those %d are equal natively (%s). ", rows, n-rows, rowsEqual, rows, pct(rowsEqual, rows))
	p("Counting as agreeing both the equal queries and the errors with Spark's own error class: %d of %d (%s). The target is on the first line of the table, the equal share of all self-contained queries; as a query Spark answers with an error cannot be equal, that share is at most %s with the corpus as it is replayed now (%d of %d).\n", r.Counts[Equal]+r.SameClass, n, pct(r.Counts[Equal]+r.SameClass, n), pct(rows, n), rows, n)
	p("- Analysis errors of the semantic model (sema) on queries Spark runs: %d.\n", len(r.AnalysisFalseErrors()))
	p("- %d of the equal queries name a computed column differently from Spark (Spark names an unaliased expression by its own rendering of it); types and rows agree.\n", r.NamesDiffer)
	p("- Not self-contained, so not run (%d statements in all):\n", r.Counts[Skipped])
	for _, c := range sortedCounts(r.SkipReasons) {
		p("  - %s: %d\n", mdEscape(c.Cause), c.N)
	}
	p("- The results part took %.1f s.\n\n", r.Elapsed.Seconds())

	p("## Method\n\n")
	p("Each golden file is replayed in order in a fresh DuckDB schema set up as a native run's session is ")
	p("(`engine.InstallSparkSQL`: the compatibility macros and the translator's helpers). A temporary view the file creates ")
	p("(`CREATE [OR REPLACE] TEMPORARY VIEW v AS query`) becomes a DuckDB view of the query's translation, `DROP VIEW` removes it, ")
	p("`SET` and `RESET` are followed: `spark.sql.ansi.enabled` (off under `nonansi/`) becomes the translation's ANSI option, ")
	p("`spark.sql.session.timeZone` its time zone (the suite runs every query under `America/Los_Angeles` unless a file sets another: the translation refuses what depends on the zone, as native runs hold timestamps in UTC), settings that change only the plan (codegen, join strategies, broadcast thresholds, ")
	p("...) are ignored except a legacy one turned on (`...LegacyIncorrectCountHandling.enabled = true` brings back wrong counts), ")
	p("and any other setting in force makes the queries under it skipped. A query is self-contained when it reads only ")
	p("VALUES, inline tables, CTEs and the file's temporary views, and calls no function whose values cannot match ")
	p("(`rand`, `uuid`, `current_timestamp`, ...). It is translated by `engine/translate` (`Translate`, with the views' columns as the ")
	p("catalog) and run; its columns' DuckDB types are named as Spark names them (`translate.SparkType`), except an interval column, ")
	p("whose Spark type (`interval year to month`, `interval second`, ...) is the translation's (`Result.Columns`: DuckDB's INTERVAL does not tell them apart), ")
	p("and a column holding a TIMESTAMP_NTZ or NULL alone (`void`), a TIMESTAMP or an INTEGER on DuckDB, whose type is the translation's too (`Options.TypedColumns`), ")
	p("and each value is printed as ")
	p("Spark's suite prints it (`HiveResult.toHiveString`: `NULL`, decimals with their scale, doubles with the digits JDK 17 writes, `[a,b]`, ")
	p("`{k:v}` sorted, `{\"field\":v}`, nested strings quoted, timestamps without trailing zeros in the fraction, a year-month interval as `1-2`, a day-time one as `3 04:05:06.000000000`). ")
	p("The schema must match Spark's `struct<...>` type by type; rows must match in Spark's order, or, as the suite sorts the rows of a ")
	p("query it does not find sorted, after sorting; the trailing whitespace of the output is dropped, as the suite drops it before ")
	p("writing the golden file (`rpad('hi', 5)` is recorded as `hi`), and expression ids are masked as the suite masks them (`1#2` is recorded as `1#x`). Rows sorted by keys the query does not select may differ in the order of rows whose keys tie: the query is run again with its ORDER BY keys as extra columns, and each run of equal keys must hold the same rows as Spark's rows at the same places. A name Spark generates for an unaliased expression may differ (counted above). ")
	p("An error where Spark errors too agrees; the class is compared where the native message carries one. ")
	p("A query reading a view the translation refused is refused for the view's reason.\n\n")

	for _, cl := range []Class{Mismatch, NativeError, Refused} {
		cs := r.Causes(cl)
		if len(cs) == 0 {
			continue
		}
		title := map[Class]string{Mismatch: "Silent mismatches by cause", NativeError: "Native errors where Spark returns rows, by cause", Refused: "Refusals by reason"}[cl]
		p("## %s\n\n| queries | cause |\n|---:|---|\n", title)
		for i, c := range cs {
			if i == 40 {
				rest := 0
				for _, c := range cs[40:] {
					rest += c.N
				}
				p("| %d | %d other causes |\n", rest, len(cs)-40)
				break
			}
			p("| %d | %s |\n", c.N, mdEscape(c.Cause))
		}
		p("\n")
	}

	p("## Results per file\n\n")
	p("| file | self-contained | equal | share | refused | both error | native error | silent mismatch | skipped |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, f := range r.Files {
		sc := f.SelfContained()
		p("| %s | %d | %d | %s | %d | %d | %d | %d | %d |\n", mdEscape(f.File), sc, f.Counts[Equal], pct(f.Counts[Equal], sc),
			f.Counts[Refused], f.Counts[BothError], f.Counts[NativeError], f.Counts[Mismatch], f.Counts[Skipped])
	}
	p("\n## Silent mismatches\n\n")
	ms := r.Of(Mismatch)
	if len(ms) == 0 {
		p("None.\n")
	}
	for _, v := range ms {
		p("- `%s` (line %d of the golden file): %s\n", mdEscape(v.ID()), v.Line, mdEscape(v.Cause))
	}
	return b.Flush()
}

func sortedCounts(m map[string]int) []CauseCount {
	out := make([]CauseCount, 0, len(m))
	for k, n := range m {
		out = append(out, CauseCount{k, n})
	}
	sortCounts(out)
	return out
}

func sortCounts(out []CauseCount) {
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].N > out[j-1].N || out[j].N == out[j-1].N && out[j].Cause < out[j-1].Cause); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
}

func pct(part, whole int) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", math.Floor(100*float64(part)/float64(whole)*100)/100)
}

func mdEscape(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#", r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
