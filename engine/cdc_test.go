package engine

import (
	"context"
	"strings"
	"testing"
)

var (
	wantSCD1 = sortedRows(
		"1|Alice Martin-Leroy|alice.martin@example.com|Paris|16",
		"3|Chen Wei|chen.wei@mailbox.example|Lyon|9",
		"4|Dora Silva|dora.silva@example.com|Nice|13",
		"5|Emil Novak|emil.novak@work.example|Lyon|12",
		"6|Farah Aziz|farah.aziz@example.com|Lille|7",
		"8|Hana Sato|hana.sato@example.com|Lille|14",
	)
	wantSCD2 = sortedRows(
		"1|Alice Martin|alice.martin@example.com|Lyon|1|1|6",
		"1|Alice Martin|alice.martin@example.com|Paris|6|6|16",
		"1|Alice Martin-Leroy|alice.martin@example.com|Paris|16|16|NULL",
		"2|Bilal Khan|bilal.khan@example.com|Paris|2|2|11",
		"3|Chen Wei|chen.wei@example.com|Lyon|3|3|9",
		"3|Chen Wei|chen.wei@mailbox.example|Lyon|9|9|NULL",
		"4|Dora Silva|dora.silva@example.com|Marseille|4|4|13",
		"4|Dora Silva|dora.silva@example.com|Nice|13|13|NULL",
		"5|Emil Novak|emil.novak@example.com|Paris|5|5|8",
		"5|Emil Novak|emil.novak@work.example|Paris|8|8|12",
		"5|Emil Novak|emil.novak@work.example|Lyon|12|12|NULL",
		"6|Farah Aziz|farah.aziz@example.com|Lille|7|7|NULL",
		"7|Gaspard Roy|gaspard.roy@example.com|Bordeaux|10|10|15",
		"8|Hana Sato|hana.sato@example.com|Lille|14|14|NULL",
	)
	wantPerCity = sortedRows("Lille|2", "Lyon|2", "Nice|1", "Paris|1")
)

func checkCDCOutputs(t *testing.T, s *Session) {
	t.Helper()
	sameRows(t, "customers_scd1", tableRows(t, s, "customers_scd1"), wantSCD1)
	sameRows(t, "customers_per_city", tableRows(t, s, "customers_per_city"), wantPerCity)
	sameRows(t, "customers_scd2", tableRows(t, s, "customers_scd2"), wantSCD2)
	sameRows(t, "versions per customer", rowsOf(t, s, "SELECT name[:5], count(*) FROM customers_scd2 GROUP BY ALL"),
		sortedRows("Alice|3", "Bilal|1", "Chen |2", "Dora |2", "Emil |3", "Farah|1", "Gaspa|1", "Hana |1"))
	cols := rowsOf(t, s, "SELECT column_name FROM (DESCRIBE customers_scd1)")
	sameRows(t, "customers_scd1 columns", cols, sortedRows("customer_id", "name", "email", "city", "seq"))
	cols = rowsOf(t, s, "SELECT column_name FROM (DESCRIBE customers_scd2)")
	sameRows(t, "customers_scd2 columns", cols, sortedRows("customer_id", "name", "email", "city", "seq", "__start_at", "__end_at"))
}

func TestCDCPipeline(t *testing.T) {
	res, s := runOK(t, "../testdata/cdc")
	checkCDCOutputs(t, s)
	// available_now: the three batches are one trigger.
	wantCounts(t, "scd1 arrived", increments(res, "customers_scd1"), arrived, 23)
	// Seven keys... one change each after reduction, but Bilal's and
	// Gaspard's last changes are deletes: 8 changes take effect.
	wantCounts(t, "scd1 emitted", increments(res, "customers_scd1"), emitted, 8)
	// SCD 2 applies every (key, seq) once: 17 upserts and deletes minus
	// the duplicate Farah INSERT.
	wantCounts(t, "scd2 emitted", increments(res, "customers_scd2"), emitted, 16)
}

// One trigger per changelog file: the state carries across triggers, so
// the duplicate and the out-of-order change arrive after the changes they
// collide with, as the README tells it.
func TestCDCPerBatchTriggers(t *testing.T) {
	dir := copyPipeline(t, "../testdata/cdc", func(rel, text string) string {
		if strings.HasPrefix(rel, "customers_scd") {
			return strings.Replace(text, "-- @kind: streaming_table", "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'", 1)
		}
		return text
	})
	res, s := runOK(t, dir)
	checkCDCOutputs(t, s)
	scd1 := increments(res, "customers_scd1")
	wantCounts(t, "scd1 arrived", scd1, arrived, 8, 7, 8)
	// Batch 1: six keys. Batch 2: Chen, Gaspard, Bilal (delete), Emil; the
	// duplicate Farah INSERT changes nothing. Batch 3: Dora, Hana, Gaspard
	// (delete), Alice; Emil's seq 8 is older than his seq 12 and ignored.
	wantCounts(t, "scd1 emitted", scd1, emitted, 6, 4, 4)
	if len(scd1) == 3 {
		for _, r := range joinRows(scd1[2].Rows) {
			if strings.HasPrefix(r, "5|") {
				t.Errorf("scd1 applied Emil's late change: %s", r)
			}
		}
	}
	// SCD 2 slots Emil's seq 8 in: batch 3 applies five changes.
	wantCounts(t, "scd2 emitted", increments(res, "customers_scd2"), emitted, 7, 4, 5)
}

// cdcPipeline is a pipeline applying changes from a folder of batches.
func cdcPipeline(t *testing.T, spec string, batches ...string) string {
	files := map[string]string{
		"target.sql": "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n-- @cdc: " + spec + "\nSELECT * FROM STREAM(changes)\n",
	}
	for i, b := range batches {
		files["samples/changes/b"+string(rune('1'+i))+".csv"] = "id,v,_change_type,seq\n" + b
	}
	return writePipeline(t, files)
}

func TestCDCSCD1(t *testing.T) {
	dir := cdcPipeline(t, "keys=(id) sequence_by=seq scd=1",
		// Out of order within a batch, an UPDATE_BEFORE to ignore, a delete.
		"1,b,UPDATE_AFTER,2\n1,a,INSERT,1\n1,a,UPDATE_BEFORE,2\n2,x,INSERT,1\n3,y,INSERT,1\n3,y,DELETE,2\n",
		// A duplicate, an older change, a delete and an upsert with the
		// same sequence (the delete wins), a re-insert after a delete.
		"1,b,UPDATE_AFTER,2\n2,old,UPDATE_AFTER,0\n4,p,INSERT,5\n4,p,DELETE,5\n3,back,INSERT,3\n",
		// A change older than a delete already applied is ignored.
		"4,late,INSERT,4\n2,x2,UPDATE_AFTER,7\n",
	)
	res, s := runOK(t, dir)
	sameRows(t, "target", tableRows(t, s, "target"), sortedRows("1|b|2", "2|x2|7", "3|back|3"))
	incs := increments(res, "target")
	wantCounts(t, "arrived", incs, arrived, 6, 5, 2)
	wantCounts(t, "emitted", incs, emitted, 3, 2, 1)
	if len(incs) == 3 {
		sameRows(t, "trigger 2 applied", joinRows(incs[1].Rows), sortedRows("3|back|INSERT|3", "4|p|DELETE|5"))
	}
}

func TestCDCSCD2(t *testing.T) {
	dir := cdcPipeline(t, "keys=(id) sequence_by=seq scd=2",
		"1,a,INSERT,1\n1,a,UPDATE_BEFORE,3\n1,b,UPDATE_AFTER,3\n2,x,INSERT,1\n",
		// A delete closes the open version; a duplicate is ignored.
		"2,x,DELETE,4\n1,a,INSERT,1\n",
		// Late changes slot into the history, also before a delete.
		"1,m,UPDATE_AFTER,2\n2,y,UPDATE_AFTER,2\n1,c,UPDATE_AFTER,9\n",
	)
	res, s := runOK(t, dir)
	sameRows(t, "target", tableRows(t, s, "target"), sortedRows(
		"1|a|1|1|2", "1|m|2|2|3", "1|b|3|3|9", "1|c|9|9|NULL",
		"2|x|1|1|2", "2|y|2|2|4",
	))
	wantCounts(t, "emitted", increments(res, "target"), emitted, 3, 1, 3)
}

func TestCDCDeletesPredicateWithoutChangeType(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"target.sql":            "-- @kind: streaming_table\n-- @cdc: keys=(k1, k2) sequence_by=ts deletes=(op = 'D')\nSELECT * FROM STREAM(changes)\n",
		"samples/changes/1.csv": "k1,k2,op,ts,v\n1,1,U,1,a\n1,2,U,1,b\n1,1,D,2,\n2,1,U,1,c\n",
		"samples/changes/2.csv": "k1,k2,op,ts,v\n2,1,U,3,c2\n1,1,U,3,again\n",
	})
	_, s := runOK(t, dir)
	sameRows(t, "target", tableRows(t, s, "target"), sortedRows("1|1|U|3|again", "1|2|U|1|b", "2|1|U|3|c2"))
}

func TestCDCErrors(t *testing.T) {
	cases := []struct {
		name, spec, batch, want string
	}{
		{"missing key", "keys=(nope) sequence_by=seq", "1,a,INSERT,1\n", "cdc key nope is not a column"},
		{"missing sequence", "keys=(id) sequence_by=nope", "1,a,INSERT,1\n", "cdc sequence_by nope is not a column"},
		{"null sequence", "keys=(id) sequence_by=seq", "1,a,INSERT,1\n2,b,INSERT,\n", "NULL sequence_by column seq"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := cdcPipeline(t, c.spec, c.batch)
			snap, s := load(t, dir)
			res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Datasets["target"]
			if d.Phase != Failed || !strings.Contains(d.Error, c.want) || !strings.Contains(d.Error, "flow target") {
				t.Fatalf("got %s %q, want failed with %q naming the flow", d.Phase, d.Error, c.want)
			}
		})
	}
}
