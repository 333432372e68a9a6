package results

import (
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/conformance"
)

// TestSparkRowsCountsOnlyQueriesSparkAnswers checks that the share of
// equal queries among those Spark answers with rows leaves out skipped
// queries and queries Spark failed.
func TestSparkRowsCountsOnlyQueriesSparkAnswers(t *testing.T) {
	threw := func(cl Class, ex string) Verdict {
		var c conformance.Case
		c.Spark.Threw = ex
		return Verdict{Case: c, Class: cl}
	}
	r := &Report{Files: []*FileResult{{Verdicts: []Verdict{
		threw(Equal, ""), threw(Equal, ""), threw(Refused, ""), threw(NativeError, ""),
		threw(BothError, "org.apache.spark.SparkArithmeticException"),
		threw(Refused, "org.apache.spark.sql.AnalysisException"),
		threw(Skipped, ""),
	}}}}
	rows, equal := r.SparkRows()
	if rows != 4 || equal != 2 {
		t.Fatalf("SparkRows = %d rows, %d equal; want 4 rows (2 equal, 1 refused, 1 native error), the skipped query and Spark's 2 errors left out", rows, equal)
	}
}
