package engine

// CDC apply changes.
//
// A flow with `@cdc: keys=(...) sequence_by=COL [scd=1|2] [deletes=(P)]`
// reads a changelog: the record's columns, usually `_change_type`
// (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE) and the sequence column.
// Each trigger's changes (the flow's query over the trigger's rows) are
// applied onto the target, keyed by the keys and ordered by the sequence:
//
//   - INSERT and UPDATE_AFTER (and any other or missing change type) upsert;
//     UPDATE_BEFORE is ignored; DELETE, or a row matching the deletes
//     predicate, removes.
//   - Within one trigger, changes for one key (SCD 1) or one key and
//     sequence value (SCD 2) are reduced to one: the highest sequence wins;
//     on equal sequences a DELETE wins over an upsert, and between two
//     upserts the one whose row text sorts last wins (arbitrary, but the
//     same on every run).
//   - SCD 1: the target holds the latest live row per key, without
//     `_change_type` (the sequence column stays). The engine keeps the
//     latest applied sequence per key, deletes included (tombstones), and
//     ignores a change whose sequence is <= the key's: late and duplicate
//     changes change nothing.
//   - SCD 2: the target holds every version, with `__start_at` (the
//     sequence of the change that wrote it) and `__end_at` (the sequence of
//     the key's next change, NULL for the open version); a delete closes
//     the open version. The SQL forms (AUTO CDC, APPLY CHANGES INTO) name
//     them `__START_AT` and `__END_AT`, as Spark and Databricks do.
//   - COLUMNS (a, b) keeps only those changelog columns in the target,
//     COLUMNS * EXCEPT (a, b) all but those (ir.CDC.Columns).
//   - TRACK HISTORY ON (cols) | * EXCEPT (cols) (SCD 2): consecutive
//     upserts of a key that change none of the tracked columns are one
//     version, from the first one's sequence, holding the last one's
//     values of the other columns.
//   - APPLY AS TRUNCATE WHEN (SCD 1): the trigger's latest matching
//     change deletes every row written before its sequence, and the
//     trigger's changes up to it are dropped.
//   - IGNORE NULL UPDATES (SCD 1): a NULL in the change that wins a key
//     keeps the column's value from the latest earlier upsert of the
//     trigger that has one, else the stored value (none from before a
//     delete of the key). A late change is slotted into the history at its
//     sequence; a change whose key and sequence were already applied is
//     ignored.
//
// A sequence value may not be NULL. The state lives in temporary tables
// for the run, shared by every CDC flow into the same target.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// cdcState is the apply-changes state of one target.
type cdcState struct {
	scd int
	// state holds, for SCD 1, the latest applied sequence per key (and
	// whether it was a delete); for SCD 2, every applied change.
	state   string
	created bool
}

// cdcCols are the changelog columns one flow's CDC spec names.
type cdcCols struct {
	keys []string
	seq  string
	// ct is the _change_type column ("" when the changes have none).
	ct string
	// out are the target's columns from the changelog (all but ct).
	out []string
	// untracked are the columns of out whose changes do not open a new
	// SCD 2 version (TRACK HISTORY ON), quoted; nil when every change
	// does.
	untracked map[string]bool
}

const (
	changeTypeCol = "_change_type"
	startAtCol    = "__start_at"
	endAtCol      = "__end_at"
)

// scdColumns are the names of the SCD 2 validity columns of c.
func scdColumns(c *ir.CDC) (string, string) {
	start, end := startAtCol, endAtCol
	if c.StartAt != "" {
		start = c.StartAt
	}
	if c.EndAt != "" {
		end = c.EndAt
	}
	return start, end
}

// cdcFor returns the CDC state of d's target, checking f's spec.
func (st *runState) cdcFor(d *ir.Dataset, f *ir.Flow) (*cdcState, error) {
	c := f.CDC
	if len(c.Keys) == 0 {
		return nil, fmt.Errorf("cdc needs keys=(...)")
	}
	if strings.TrimSpace(c.SequenceBy) == "" {
		return nil, fmt.Errorf("cdc needs sequence_by=COLUMN")
	}
	scd := c.SCD
	if scd == 0 {
		scd = 1
	}
	if scd != 1 && scd != 2 {
		return nil, fmt.Errorf("cdc scd=%d: use 1 or 2", c.SCD)
	}
	sr := st.streams()
	key := ir.NameKey(d.Name)
	if cs := sr.cdc[key]; cs != nil {
		if cs.scd != scd {
			return nil, fmt.Errorf("cdc scd=%d, but another flow applies changes into %s with scd=%d", scd, d.Name, cs.scd)
		}
		return cs, nil
	}
	cs := &cdcState{scd: scd, state: quoteIdent("__thund_cdc_" + strconv.Itoa(len(sr.cdc)) + "_" + d.Name)}
	sr.cdc[key] = cs
	sr.temps = append(sr.temps, cs.state)
	cleanup(st.conn, "DROP TABLE IF EXISTS "+cs.state)
	return cs, nil
}

// cdcColumns matches the CDC spec's names to the changes' columns.
func (fr *flowRun) cdcColumns() (cdcCols, error) {
	find := func(name string) string {
		name = strings.Trim(strings.TrimSpace(name), "`\"")
		for _, c := range fr.cols {
			if strings.EqualFold(c, name) {
				return c
			}
		}
		return ""
	}
	var cc cdcCols
	for _, k := range fr.f.CDC.Keys {
		c := find(k)
		if c == "" {
			return cc, fr.fail("cdc key %s is not a column of the changes (columns: %s)", k, strings.Join(fr.cols, ", "))
		}
		cc.keys = append(cc.keys, c)
	}
	if cc.seq = find(fr.f.CDC.SequenceBy); cc.seq == "" {
		return cc, fr.fail("cdc sequence_by %s is not a column of the changes (columns: %s)", fr.f.CDC.SequenceBy, strings.Join(fr.cols, ", "))
	}
	cc.ct = find(changeTypeCol)
	// COLUMNS (a, b) keeps those columns; COLUMNS * EXCEPT (a, b) leaves
	// them out (the keys and the sequence still order the changes).
	listed := map[string]bool{}
	for _, c := range fr.f.CDC.Columns {
		n := find(c)
		if n == "" {
			return cc, fr.fail("cdc column %s is not a column of the changes (columns: %s)", c, strings.Join(fr.cols, ", "))
		}
		listed[n] = true
	}
	startAt, endAt := scdColumns(fr.f.CDC)
	for _, c := range fr.cols {
		if c == cc.ct || len(listed) > 0 && listed[c] == fr.f.CDC.ColumnsExcept {
			continue
		}
		if fr.cdc.scd == 2 && (strings.EqualFold(c, startAt) || strings.EqualFold(c, endAt)) {
			return cc, fr.fail("the changes have a column %s, which SCD 2 adds itself", c)
		}
		if strings.HasPrefix(strings.ToLower(c), "__thund_") {
			return cc, fr.fail("column %s: names starting with __thund_ are reserved", c)
		}
		cc.out = append(cc.out, quoteIdent(c))
	}
	if th := fr.f.CDC.TrackHistory; len(th) > 0 && fr.cdc.scd == 2 {
		listed := map[string]bool{}
		for _, c := range th {
			n := find(c)
			if n == "" {
				return cc, fr.fail("TRACK HISTORY ON column %s is not a column of the changes (columns: %s)", c, strings.Join(fr.cols, ", "))
			}
			listed[n] = true
		}
		key := map[string]bool{}
		for _, k := range cc.keys {
			key[k] = true
		}
		cc.untracked = map[string]bool{}
		for _, c := range fr.cols {
			if !key[c] && listed[c] == fr.f.CDC.TrackHistoryExcept {
				cc.untracked[quoteIdent(c)] = true
			}
		}
	}
	return cc, nil
}

// applyCDC applies the trigger's changes (table changes) onto the target
// and returns a table of the changes that took effect.
func (fr *flowRun) applyCDC(ctx context.Context, t int, changes string) (string, error) {
	cs := fr.cdc
	cc, err := fr.cdcColumns()
	if err != nil {
		return "", err
	}
	seq := quoteIdent(cc.seq)
	var keys []string
	for _, k := range cc.keys {
		keys = append(keys, quoteIdent(k))
	}
	match := func(a, b string) string {
		var out []string
		for _, k := range keys {
			out = append(out, a+"."+k+" IS NOT DISTINCT FROM "+b+"."+k)
		}
		return strings.Join(out, " AND ")
	}
	out := strings.Join(cc.out, ", ")
	startAt, endAt := scdColumns(fr.f.CDC)
	startAt, endAt = quoteIdent(startAt), quoteIdent(endAt)

	if t == 1 && !fr.created {
		cols := declaredCDCColumns(fr.d, cc.out, out)
		if cs.scd == 2 {
			cols += ", " + seq + " AS " + startAt + ", " + seq + " AS " + endAt
		}
		if _, err := fr.execCDC(ctx, "create "+fr.d.Name, "CREATE TABLE "+fr.target+" AS SELECT "+cols+" FROM "+changes+" LIMIT 0"); err != nil {
			return "", err
		}
		fr.created = true
	}

	// Classify: D = delete, B = update-before (ignored), U = upsert.
	var del []string
	ctype := ""
	if cc.ct != "" {
		ctype = "upper(CAST(" + quoteIdent(cc.ct) + " AS VARCHAR))"
		del = append(del, "coalesce("+ctype+" = 'DELETE', false)")
	}
	if strings.TrimSpace(fr.f.CDC.Deletes) != "" {
		tf, err := fr.st.fragmentSQL(ctx, fr.f, fr.st.cdcFragment(fr.f, false), changes)
		if err != nil {
			return "", err
		}
		del = append(del, "coalesce(("+tf.expr+"), false)")
	}
	trunc := ""
	if strings.TrimSpace(fr.f.CDC.TruncateWhen) != "" && cs.scd == 1 {
		// SCD 1 only, as on Databricks (analysis warns)
		tf, err := fr.st.fragmentSQL(ctx, fr.f, fr.st.cdcFragment(fr.f, true), changes)
		if err != nil {
			return "", err
		}
		trunc = tf.expr
	}
	kind := "'U'"
	if len(del) > 0 || ctype != "" || trunc != "" {
		kind = "CASE"
		if trunc != "" {
			kind += " WHEN coalesce((" + trunc + "), false) THEN 'T'"
		}
		if len(del) > 0 {
			kind += " WHEN " + strings.Join(del, " OR ") + " THEN 'D'"
		}
		if ctype != "" {
			kind += " WHEN coalesce(" + ctype + " = 'UPDATE_BEFORE', false) THEN 'B'"
		}
		kind += " ELSE 'U' END"
	}
	chg := fr.temp("cdc_changes")
	stmt := "CREATE OR REPLACE TEMP TABLE " + chg + " AS SELECT * FROM (SELECT __thund_r.*, " + kind +
		" AS __thund_kind, CAST(__thund_r AS VARCHAR) AS __thund_txt FROM " + changes + " AS __thund_r) WHERE __thund_kind <> 'B'"
	what := "classify changes"
	if d := strings.TrimSpace(fr.f.CDC.Deletes); d != "" {
		what = "classify changes (the delete condition " + d + ")"
	}
	if _, err := fr.execCDC(ctx, what, stmt); err != nil {
		return "", err
	}
	var nulls int64
	if err := fr.st.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+chg+" WHERE "+seq+" IS NULL").Scan(&nulls); err != nil {
		return "", fr.fail("check sequence: %v", explain(err))
	}
	if nulls > 0 {
		return "", fr.fail("%d change(s) have a NULL sequence_by column %s", nulls, cc.seq)
	}
	if err := fr.warnTies(ctx, chg, cc); err != nil {
		return "", err
	}
	if trunc != "" {
		// APPLY AS TRUNCATE WHEN: the latest truncation of the trigger
		// empties the target of every row written before it; the
		// trigger's changes up to it are dropped.
		at := fr.temp("cdc_truncate")
		tmax := "(SELECT __thund_t FROM " + at + ")"
		steps := [][2]string{{"truncate " + fr.d.Name, "CREATE OR REPLACE TEMP TABLE " + at + " AS SELECT max(" + seq + ") AS __thund_t FROM " + chg + " WHERE __thund_kind = 'T'"}}
		if cs.created {
			steps = append(steps,
				[2]string{"truncate " + fr.d.Name, "DELETE FROM " + fr.target + " WHERE EXISTS (SELECT 1 FROM " + cs.state + " AS __thund_s WHERE " +
					match("__thund_s", fr.target) + " AND __thund_s.__thund_seq < " + tmax + ")"},
				// the keys written before it are deleted at its sequence
				[2]string{"truncate " + fr.d.Name, "CREATE OR REPLACE TEMP TABLE " + fr.temp("cdc_truncated") + " AS SELECT " + strings.Join(keys, ", ") +
					", " + tmax + " AS __thund_seq, true AS __thund_deleted FROM " + cs.state + " WHERE __thund_seq < " + tmax},
				[2]string{"truncate " + fr.d.Name, "DELETE FROM " + cs.state + " WHERE __thund_seq < " + tmax},
				[2]string{"truncate " + fr.d.Name, "INSERT INTO " + cs.state + " BY NAME SELECT * FROM " + fr.temp("cdc_truncated")})
		} else if fr.created {
			steps = append(steps, [2]string{"truncate " + fr.d.Name, "DELETE FROM " + fr.target + " WHERE " + tmax + " IS NOT NULL"})
		}
		steps = append(steps, [2]string{"truncate " + fr.d.Name, "DELETE FROM " + chg + " WHERE " + seq + " <= " + tmax})
		for _, st := range steps {
			if _, err := fr.execCDC(ctx, st[0], st[1]); err != nil {
				return "", err
			}
		}
	}

	// One change per key (SCD 1) or per key and sequence (SCD 2).
	part := strings.Join(keys, ", ")
	if cs.scd == 2 {
		part += ", " + seq
	}
	win := fr.temp("cdc_winners")
	stmt = "CREATE OR REPLACE TEMP TABLE " + win + " AS SELECT * FROM " + chg +
		" QUALIFY row_number() OVER (PARTITION BY " + part + " ORDER BY " + seq + " DESC, (__thund_kind = 'D') DESC, __thund_txt DESC) = 1"
	if _, err := fr.execCDC(ctx, "order changes", stmt); err != nil {
		return "", err
	}

	if !cs.created {
		if cs.scd == 1 {
			stmt = "CREATE OR REPLACE TEMP TABLE " + cs.state + " AS SELECT " + part + ", " + seq + " AS __thund_seq, false AS __thund_deleted FROM " + win + " LIMIT 0"
		} else {
			stmt = "CREATE OR REPLACE TEMP TABLE " + cs.state + " AS SELECT * EXCLUDE (__thund_txt) FROM " + win + " LIMIT 0"
		}
		if _, err := fr.execCDC(ctx, "cdc state", stmt); err != nil {
			return "", err
		}
		cs.created = true
	}

	app := fr.temp("cdc_applied")
	var newer string
	if cs.scd == 1 {
		newer = "__thund_s.__thund_seq >= __thund_w." + seq
	} else {
		newer = "__thund_s." + seq + " = __thund_w." + seq
	}
	stmt = "CREATE OR REPLACE TEMP TABLE " + app + " AS SELECT __thund_w.* FROM " + win + " AS __thund_w WHERE NOT EXISTS (SELECT 1 FROM " +
		cs.state + " AS __thund_s WHERE " + match("__thund_s", "__thund_w") + " AND " + newer + ")"
	if _, err := fr.execCDC(ctx, "skip old changes", stmt); err != nil {
		if strings.Contains(err.Error(), "Cannot compare values of type") {
			return "", fr.seqTypeClash(ctx, cc.seq, chg)
		}
		return "", err
	}

	var steps [][2]string
	dropTouched := "DELETE FROM " + fr.target + " WHERE EXISTS (SELECT 1 FROM " + app + " AS __thund_a WHERE " + match("__thund_a", fr.target) + ")"
	if cs.scd == 1 {
		upserts := "SELECT " + out + " FROM " + app + " WHERE __thund_kind = 'U'"
		var keep [][2]string
		if fr.f.CDC.IgnoreNullUpdates {
			// IGNORE NULL UPDATES: a NULL in the winning change keeps the
			// value of the latest earlier upsert of the trigger that has
			// one, else the stored value, neither from before a delete
			// of the key.
			deletedSince := func(from string) string {
				return "EXISTS (SELECT 1 FROM " + chg + " AS __thund_d WHERE " + match("__thund_d", "__thund_a") +
					" AND __thund_d.__thund_kind = 'D' AND __thund_d." + seq + " < __thund_a." + seq + from + ")"
			}
			var cols []string
			for _, c := range cc.out {
				earlier := "(SELECT __thund_e." + c + " FROM " + chg + " AS __thund_e WHERE " + match("__thund_e", "__thund_a") +
					" AND __thund_e.__thund_kind = 'U' AND __thund_e." + seq + " < __thund_a." + seq + " AND __thund_e." + c + " IS NOT NULL AND NOT " +
					deletedSince(" AND __thund_d."+seq+" > __thund_e."+seq) + " ORDER BY __thund_e." + seq + " DESC LIMIT 1)"
				stored := "CASE WHEN " + deletedSince("") + " THEN NULL ELSE __thund_t." + c + " END"
				cols = append(cols, "coalesce(__thund_a."+c+", "+earlier+", "+stored+") AS "+c)
			}
			merged := fr.temp("cdc_merged")
			keep = [][2]string{{"keep stored values", "CREATE OR REPLACE TEMP TABLE " + merged + " AS SELECT " + strings.Join(cols, ", ") +
				" FROM " + app + " AS __thund_a LEFT JOIN " + fr.target + " AS __thund_t ON " + match("__thund_a", "__thund_t") + " WHERE __thund_a.__thund_kind = 'U'"}}
			upserts = "SELECT * FROM " + merged
		}
		steps = append(keep, [][2]string{
			{"update cdc state", "DELETE FROM " + cs.state + " WHERE EXISTS (SELECT 1 FROM " + app + " AS __thund_a WHERE " + match("__thund_a", cs.state) + ")"},
			{"update cdc state", "INSERT INTO " + cs.state + " SELECT " + part + ", " + seq + ", __thund_kind = 'D' FROM " + app},
			{"apply changes to " + fr.d.Name, dropTouched},
			{"apply changes to " + fr.d.Name, "INSERT INTO " + fr.target + " BY NAME " + upserts},
		}...)
	} else {
		touched := "SELECT * FROM " + cs.state + " AS __thund_s WHERE EXISTS (SELECT 1 FROM " + app + " AS __thund_a WHERE " + match("__thund_a", "__thund_s") + ")"
		byKey := "PARTITION BY " + strings.Join(keys, ", ") + " ORDER BY " + seq
		versions := "SELECT " + out + ", " + seq + " AS " + startAt + ", __thund_end AS " + endAt +
			" FROM (SELECT *, lead(" + seq + ") OVER (" + byKey + ") AS __thund_end FROM (" + touched + ")) WHERE __thund_kind = 'U'"
		if len(cc.untracked) > 0 {
			// TRACK HISTORY ON: consecutive upserts of a key that change
			// no tracked column are one version, from the first one's
			// sequence, with the last one's untracked values.
			var tracked, cols []string
			for _, c := range cc.out {
				if !cc.untracked[c] {
					tracked = append(tracked, c)
				}
			}
			for _, c := range cc.out {
				switch {
				case cc.untracked[c]:
					cols = append(cols, "arg_max("+c+", "+seq+") AS "+c)
				default:
					cols = append(cols, "arg_min("+c+", "+seq+") AS "+c)
				}
			}
			row := "row(" + strings.Join(tracked, ", ") + ")"
			if len(tracked) == 0 {
				row = "true"
			}
			marked := "SELECT *, (lag(__thund_kind) OVER (" + byKey + ") IS DISTINCT FROM 'U' OR __thund_kind = 'D' OR lag(" + row + ") OVER (" + byKey + ") IS DISTINCT FROM " + row + ") AS __thund_new FROM (" + touched + ")"
			grouped := "SELECT *, sum(CASE WHEN __thund_new THEN 1 ELSE 0 END) OVER (" + byKey + " ROWS UNBOUNDED PRECEDING) AS __thund_grp FROM (" + marked + ")"
			collapsed := "SELECT " + strings.Join(cols, ", ") + ", min(" + seq + ") AS __thund_start, any_value(__thund_kind) AS __thund_kind FROM (" + grouped + ") GROUP BY " + strings.Join(keys, ", ") + ", __thund_grp"
			versions = "SELECT * EXCLUDE (__thund_start, __thund_kind, __thund_end) FROM (SELECT *, __thund_start AS " + startAt + ", lead(__thund_start) OVER (PARTITION BY " + strings.Join(keys, ", ") +
				" ORDER BY __thund_start) AS " + endAt + ", NULL AS __thund_end FROM (" + collapsed + ")) WHERE __thund_kind = 'U'"
		}
		steps = [][2]string{
			{"update cdc state", "INSERT INTO " + cs.state + " BY NAME SELECT * EXCLUDE (__thund_txt) FROM " + app},
			{"apply changes to " + fr.d.Name, dropTouched},
			{"apply changes to " + fr.d.Name, "INSERT INTO " + fr.target + " BY NAME " + versions},
		}
	}
	for _, s := range steps {
		if _, err := fr.execCDC(ctx, s[0], s[1]); err != nil {
			return "", err
		}
	}
	applied := fr.temp("cdc_emit")
	stmt = "CREATE OR REPLACE TEMP TABLE " + applied + " AS SELECT * EXCLUDE (__thund_kind, __thund_txt) FROM " + app + " ORDER BY " + seq
	if _, err := fr.execCDC(ctx, "applied changes", stmt); err != nil {
		return "", err
	}
	return applied, nil
}

// declaredCDCColumns is the select list that creates a CDC target from
// its changes: the applied columns out (quoted names, joined in list),
// or, when the target's statement declares its columns, those first, in
// their order and of their types (NULL for one the changes do not give),
// then any applied column the list lacks, as Spark merges a declared
// schema with the flow's. Rows are written into the target by name.
func declaredCDCColumns(d *ir.Dataset, out []string, list string) string {
	if len(d.Declared) == 0 {
		return list
	}
	have := make(map[string]string, len(out))
	for _, q := range out {
		have[strings.ToLower(strings.Trim(q, `"`))] = q
	}
	var cols []string
	used := map[string]bool{}
	for _, c := range d.Declared {
		val := "NULL"
		if q, ok := have[strings.ToLower(c.Name)]; ok {
			val = q
			used[q] = true
		}
		if t := duckOfSpark(c.Type); t != "" {
			val = "CAST(" + val + " AS " + t + ")"
		}
		cols = append(cols, val+" AS "+quoteIdent(c.Name))
	}
	for _, q := range out {
		if !used[q] {
			cols = append(cols, q)
		}
	}
	return strings.Join(cols, ", ")
}

// withTargetExpectations returns f with the expectations of its target d
// ahead of its own: those of a streaming table declared without a query
// (CREATE STREAMING TABLE t (CONSTRAINT c EXPECT (...)), the target of
// APPLY CHANGES / AUTO CDC, ir.Dataset.Expectations), which Databricks
// checks on the rows of every flow into it. A CDC flow's are thus checked
// on each trigger's changes before they are applied, as its own are; a
// failing one fails the flow, a dropped change is never applied. f itself
// is not changed (the IR is shared); without target expectations f is
// returned.
func withTargetExpectations(d *ir.Dataset, f *ir.Flow) *ir.Flow {
	if d == nil || len(d.Expectations) == 0 {
		return f
	}
	g := *f
	g.Expectations = append(append([]ir.Expectation(nil), d.Expectations...), f.Expectations...)
	return &g
}

// seqTypeClash is the error for changes whose sequence column seq (in
// table chg) has a type the target's earlier changes, from another flow
// into it, cannot be compared with.
func (fr *flowRun) seqTypeClash(ctx context.Context, seq, chg string) error {
	col := "__thund_seq"
	if fr.cdc.scd == 2 {
		col = quoteIdent(seq)
	}
	var now, before string
	fr.st.conn.QueryRowContext(ctx, "SELECT typeof("+quoteIdent(seq)+") FROM "+chg+" LIMIT 1").Scan(&now)
	fr.st.conn.QueryRowContext(ctx, "SELECT typeof("+col+") FROM "+fr.cdc.state+" LIMIT 1").Scan(&before)
	name := func(t string) string {
		if s := SparkTypeName(t); s != "" {
			return s
		}
		return t
	}
	return fr.fail("the sequence column %s of these changes is %s, but the changes applied into %s before, by another flow into it, are sequenced by %s: every flow into %s must sequence by one type; cast it in the flow's query (CAST(%s AS %s))",
		seq, name(now), fr.d.Name, name(before), fr.d.Name, seq, name(before))
}

// A key's changes that tie on the sequence (same key, same SEQUENCE BY
// value, different rows) are applied in no defined order on Databricks,
// which requires one change per key and sequence value; the native run
// picks one deterministically (a DELETE, else the row whose text sorts
// last). warnTies says so, once per trigger, at SEQUENCE BY: which key,
// which value, how many changes, and how many keys tie in all. A typical
// cause is a sequence column set to current_timestamp() upstream, one
// value for a whole micro-batch.

// warnTies reports the changes of table chg (classified, kind column
// __thund_kind, row text __thund_txt) that tie on key and sequence.
func (fr *flowRun) warnTies(ctx context.Context, chg string, cc cdcCols) error {
	var keyText, groupBy []string
	for _, k := range cc.keys {
		q := quoteIdent(k)
		keyText = append(keyText, quoteString(k+"=")+" || coalesce(CAST("+q+" AS VARCHAR), 'NULL')")
		groupBy = append(groupBy, q)
	}
	seq := quoteIdent(cc.seq)
	groupBy = append(groupBy, seq)
	q := "SELECT k, s, n, count(*) OVER (), sum(n) OVER () FROM (SELECT concat_ws(', ', " + strings.Join(keyText, ", ") +
		") AS k, coalesce(CAST(" + seq + " AS VARCHAR), 'NULL') AS s, count(*) AS n FROM " + chg + " GROUP BY " + strings.Join(groupBy, ", ") +
		" HAVING count(DISTINCT __thund_txt) > 1) ORDER BY n DESC, k LIMIT 1"
	var key, val string
	var n, groups, total int64
	err := fr.st.conn.QueryRowContext(ctx, q).Scan(&key, &val, &n, &groups, &total)
	if err != nil {
		if strings.Contains(err.Error(), "no rows") {
			return nil
		}
		return fr.fail("check sequence ties: %v", explain(err))
	}
	msg := fmt.Sprintf("flow %s (into %s): %d changes of the key %s have the same SEQUENCE BY value, %s = %s", fr.f.Name, fr.d.Name, n, key, cc.seq, val)
	if groups > 1 {
		msg += fmt.Sprintf(", and %d more keys tie (%d tied changes in all)", groups-1, total)
	}
	msg += ": Databricks needs one change per key and sequence value and applies tied ones in no defined order, so the result may differ from this run's, which applies a DELETE among them, else the change whose row sorts last as text; " +
		"sequence the changes by a column whose value differs between a key's changes (an event time or a version from the source, not the time the row was read)"
	file, line := fr.sequenceByAt()
	fr.st.mu.Lock()
	if fr.st.res != nil {
		fr.st.res.SampleWarnings = append(fr.st.res.SampleWarnings, SampleWarning{File: file, Line: line, Message: msg, Code: CodeCDCSequenceTies})
	}
	fr.st.mu.Unlock()
	return nil
}

// sequenceByRe finds the sequence clause of a CDC statement (SEQUENCE
// BY) or of the @cdc pragma (sequence_by=).
var sequenceByRe = regexp.MustCompile(`(?i)\bsequence(?:\s+by\b|_by\s*=)`)

// sequenceByAt is the file and 1-based line of the flow's SEQUENCE BY
// (the start of its CDC clause when the text does not show it).
func (fr *flowRun) sequenceByAt() (string, int) {
	loc := fr.f.CDC.Loc
	if loc.File == "" {
		loc = fr.f.QueryLoc
	}
	path := loc.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(fr.st.s.Root, filepath.FromSlash(path))
	}
	text, err := os.ReadFile(path)
	if err != nil || loc.Start < 0 || loc.Start > len(text) {
		return loc.File, 1
	}
	off := loc.Start
	rest := text[loc.Start:]
	if semi := strings.IndexByte(string(rest), ';'); semi >= 0 {
		rest = rest[:semi]
	}
	if m := sequenceByRe.FindIndex(rest); m != nil {
		off += m[0]
	}
	return loc.File, textpos.New(string(text)).Rune(off).Line + 1
}

// execCDC is exec for a step of applying changes: a value of the changes
// that does not convert to the target's type fails as Spark's cast does
// (CAST_INVALID_INPUT, the value and the type), and an error the
// translation raises in Spark's terms is given without DuckDB's prefix.
func (fr *flowRun) execCDC(ctx context.Context, what, stmt string) (int64, error) {
	res, err := fr.st.conn.ExecContext(ctx, stmt)
	if err != nil {
		msg := explain(err).Error()
		if i := strings.Index(msg, "\n\nLINE "); i >= 0 {
			msg = msg[:i]
		}
		if out := sparkConversion(msg); out != msg || strings.HasPrefix(msg, "Invalid Input Error: [") {
			// A Spark error class, DuckDB's or the translation's own.
			return 0, fr.fail("%s: %s", what, strings.TrimPrefix(out, "Invalid Input Error: "))
		}
		return 0, fr.fail("%s: %v", what, explain(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}
