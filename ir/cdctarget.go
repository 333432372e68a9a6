package ir

import "strings"

// What a CDC flow's target holds (the native engine's engine/cdc.go, and
// Spark's and Databricks' AUTO CDC): the changelog's columns but
// _change_type and those the COLUMNS clause leaves out, then, for SCD 2,
// the validity columns, typed like the sequence column.

// cdcName is a column name of a CDC clause as the changelog spells it:
// without spaces or quotes, keyed like any name.
func cdcName(n string) string { return NameKey(strings.Trim(strings.TrimSpace(n), "`\"")) }

// Keeps reports whether the target of c holds the changelog's column
// name: every column but _change_type and those COLUMNS leaves out.
func (c *CDC) Keeps(name string) bool {
	key := NameKey(name)
	if key == "_change_type" {
		return false
	}
	if len(c.Columns) == 0 {
		return true
	}
	for _, n := range c.Columns {
		if cdcName(n) == key {
			return !c.ColumnsExcept
		}
	}
	return c.ColumnsExcept
}

// Sequences reports whether name is the changelog's column SEQUENCE BY
// orders by (when it is a column, not an expression).
func (c *CDC) Sequences(name string) bool {
	return NameKey(name) == cdcName(c.SequenceBy)
}

// Validity returns the names of the SCD 2 validity columns the target
// adds (StartAt and EndAt, __start_at and __end_at when unset); "" for
// SCD 1, which adds none.
func (c *CDC) Validity() (start, end string) {
	if c.SCD != 2 {
		return "", ""
	}
	start, end = c.StartAt, c.EndAt
	if start == "" {
		start = "__start_at"
	}
	if end == "" {
		end = "__end_at"
	}
	return start, end
}
