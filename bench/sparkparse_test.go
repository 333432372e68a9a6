package bench

import (
	"context"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/conformance"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// BenchmarkSparkParse measures Thund's Spark SQL parser over every query
// of Spark's own SQL test corpus (downloaded into the cache on first
// use): one op parses all of them, statement by statement, on one core.
// It reports the throughput in MB of query text per second.
func BenchmarkSparkParse(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	corpus, err := conformance.Ensure(ctx, conformance.DefaultVersion, b.Logf)
	if err != nil {
		b.Skipf("Spark's SQL test corpus is not available: %v", err)
	}
	cases, err := corpus.LoadCases()
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, c := range cases {
		size += int64(len(c.Text))
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			parser.ParseStatement(c.Text, conformance.Options(c.Settings))
		}
	}
	b.StopTimer()
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/s/1e6, "MB/s")
	}
}
