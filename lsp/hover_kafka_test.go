package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// The hover of a read_kafka read names the kind of its source, the
// topic and the servers; a read that subscribes by pattern says so. The
// topic named like a dataset is still the Kafka source (orders_kafka),
// not the dataset.
func TestSourceHoverNamesKafka(t *testing.T) {
	root := t.TempDir()
	sql := `CREATE STREAMING TABLE a AS SELECT * FROM STREAM read_kafka(bootstrapServers => 'h:9092', subscribe => 'orders');
CREATE STREAMING TABLE b AS SELECT * FROM STREAM read_kafka(bootstrapServers => 'h:9092', subscribePattern => 'o.*');
CREATE MATERIALIZED VIEW orders AS SELECT 1 AS id;
`
	writeFiles(t, root, map[string]string{
		"spark-pipeline.yml":     "name: h\nstorage: file:///tmp/thund-hover-kafka\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/a.sql":  sql,
		"samples/orders/001.csv": "value\nx\n",
		"samples/kafka/001.csv":  "value\nx\n",
	})
	c := startServer(t)
	u, text := c.open(t, filepath.Join(root, "transformations", "a.sql"))
	got := c.hoverText(t, u, text, "read_kafka", 0, 2)
	wantAll(t, "hover on a topic read", got, "**orders_kafka** · source table", "A Kafka source: the topic `orders` on `h:9092`.", "Read as a stream (`STREAM read_kafka`, a Kafka topic).")
	got = c.hoverText(t, u, text, "read_kafka", 1, 2)
	wantAll(t, "hover on a pattern read", got, "**kafka** · source table", "A Kafka source (subscribed by pattern or assignment) on `h:9092`.")
	if strings.Contains(got, "the topic") {
		t.Errorf("a pattern read names a topic:\n%s", got)
	}
}
