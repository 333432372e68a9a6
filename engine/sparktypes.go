package engine

import (
	"strings"
	"sync"

	"github.com/thund-dev/thund/engine/translate"
)

// recordedTypes holds, per relation (lower case), the Spark types the
// last run that wrote it recorded for its columns where DuckDB's type
// says less (a TIMESTAMP_NTZ column is a TIMESTAMP in DuckDB), so a
// preview can name Spark's type; "" for a column DuckDB's type names.
type recordedTypes struct {
	mu    sync.Mutex
	byRel map[string][]string
}

// SparkTypes returns, column by column, the Spark type of dataset's
// columns where the session's last run of it knew more than DuckDB's type
// tells (TIMESTAMP_NTZ, also inside arrays, maps and structs), as Spark
// writes it ("timestamp_ntz", "array<timestamp_ntz>"), and "" for the
// others; nil when the run recorded none. The list has one entry per
// column of the relation as that run wrote it.
func (s *Session) SparkTypes(dataset string) []string {
	key := strings.ToLower(s.relation(dataset))
	s.types.mu.Lock()
	defer s.types.mu.Unlock()
	return append([]string(nil), s.types.byRel[key]...)
}

// keepTypes records the Spark types a run gave relation rel's columns
// (nil entries, or a nil list, where DuckDB's type is Spark's).
func (s *Session) keepTypes(rel string, cols []*translate.Type) {
	key := strings.ToLower(rel)
	var names []string
	for i, c := range cols {
		if c == nil || !c.HasTimestampNTZ() {
			continue
		}
		if names == nil {
			names = make([]string, len(cols))
		}
		names[i] = c.String()
	}
	s.types.mu.Lock()
	defer s.types.mu.Unlock()
	if names == nil {
		delete(s.types.byRel, key)
		return
	}
	if s.types.byRel == nil {
		s.types.byRel = map[string][]string{}
	}
	s.types.byRel[key] = names
}

// typesOf returns the Spark types this run's translations recorded for
// dataset name's relation (noteTypes), nil when none.
func (st *runState) typesOf(name string) []*translate.Type {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.typed[strings.ToLower(st.rel(name))]
}
