package sqlfront

import "testing"

const benchFile = `-- Daily revenue.
CREATE MATERIALIZED VIEW daily_revenue COMMENT 'revenue per day' AS
SELECT order_date, sum(amount) AS revenue FROM clean_orders GROUP BY order_date;

-- @trigger: processing_time '10 seconds'
CREATE STREAMING TABLE click_events AS SELECT * FROM STREAM(clicks);

CREATE FLOW backfill AS INSERT INTO click_events BY NAME
SELECT * FROM STREAM(clicks_archive);

CREATE TEMPORARY VIEW recent AS
WITH o AS (SELECT * FROM orders WHERE ts > now() - INTERVAL '1 day')
SELECT o.id, c.region FROM o JOIN customers c USING (customer_id);
`

// BenchmarkParse parses a small SDP file whose queries PostgreSQL reads.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		Parse("f.sql", benchFile)
	}
}

// BenchmarkParseDuckDB parses a query only DuckDB reads (the fallback).
func BenchmarkParseDuckDB(b *testing.B) {
	const text = "FROM orders SELECT * EXCLUDE (secret) QUALIFY row_number() OVER (PARTITION BY id) = 1"
	for b.Loop() {
		Parse("f.sql", text)
	}
}

// BenchmarkSplit splits the SDP file.
func BenchmarkSplit(b *testing.B) {
	for b.Loop() {
		Split(benchFile)
	}
}
