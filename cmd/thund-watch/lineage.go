package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/analysis/schema"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/watch"
)

// lineageMisuse checks --lineage's value and mode; it returns the
// message of a mistake, or "".
func lineageMisuse(o options) string {
	if o.lineage == "" {
		return ""
	}
	if !o.check {
		return "thund-watch: --lineage goes with --check (without it, thund-watch starts watching)"
	}
	if i := strings.LastIndexByte(o.lineage, '.'); i <= 0 || i == len(o.lineage)-1 {
		return fmt.Sprintf("thund-watch: --lineage %s: give DATASET.COLUMN, for example --lineage daily_revenue.revenue", o.lineage)
	}
	return ""
}

// errLineage is a --lineage column the pipeline does not have (exit
// status 2, like any other mistake on the command line).
type errLineage struct{ msg string }

func (e *errLineage) Error() string { return e.msg }

// lineageOf resolves DATASET.COLUMN (the dataset may be qualified, the
// column is after the last dot) in snap's column graph.
// types, when not nil, gives the datasets' column types (DuckDB's names).
func lineageOf(snap *analysis.Snapshot, spec string, types func(string) map[string]string) (*lineage.Graph, *lineage.Column, error) {
	i := strings.LastIndexByte(spec, '.')
	table, column := spec[:i], spec[i+1:]
	g := lineage.New(lineage.Input{Pipeline: snap.Pipeline, Tree: snap.SparkTree, Text: snap.Text, SourceColumns: snap.SampleColumns, Types: types})
	t := g.Table(table)
	if t == nil {
		return nil, nil, &errLineage{fmt.Sprintf("--lineage %s: %s is not a dataset or source table of this pipeline%s", spec, table, suggestDataset(snap.Pipeline, table))}
	}
	c := t.Column(column)
	if c == nil {
		var names []string
		for _, x := range t.Columns {
			names = append(names, x.ID.Column)
		}
		known := "its columns are not known"
		if t.Reason != "" {
			known += " (" + t.Reason + ")"
		}
		if len(names) > 0 {
			known = "its columns: " + strings.Join(names, ", ")
		}
		return nil, nil, &errLineage{fmt.Sprintf("--lineage %s: %s has no column %s; %s", spec, t.Name, column, known)}
	}
	return g, c, nil
}

// printLineage prints a column's upstream and downstream as trees (with
// --json, one {"type":"lineage"} object).
func printLineage(w io.Writer, snap *analysis.Snapshot, spec string, asJSON bool) error {
	g, c, err := lineageOf(snap, spec, describedTypes(snap))
	if err != nil {
		return err
	}
	up, down := g.Upstream(c.ID), g.Downstream(c.ID)
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"type": "lineage", "column": c.ID, "columnType": preview.SparkType(c.Type),
			"upstream": up, "downstream": down})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Lineage of %s", c.ID)
	if c.Type != "" {
		fmt.Fprintf(&b, " · %s", preview.SparkType(c.Type)) // Spark's name, as the editor shows it
	}
	if c.Def.End > c.Def.Start {
		text, _ := snap.Text(c.Def.File)
		line := strings.Count(text[:c.Def.Start], "\n") + 1
		fmt.Fprintf(&b, " (%s:%d)", c.Def.File, line)
	}
	b.WriteString("\n\nUpstream, the columns it is computed from:\n")
	writeTree(&b, up, "none: a column of a source table, or computed from constants")
	b.WriteString("\nDownstream, the columns computed from it:\n")
	writeTree(&b, down, "none: no dataset reads it")
	b.WriteString("\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// writeTree writes a tree with box-drawing branches; a column shown
// higher up is marked (see above) and not expanded again.
func writeTree(b *strings.Builder, root *lineage.Node, none string) {
	fmt.Fprintf(b, "%s\n", root.ID)
	if len(root.Children) == 0 {
		fmt.Fprintf(b, "  (%s)\n", none)
		return
	}
	var walk func(n *lineage.Node, prefix string)
	walk = func(n *lineage.Node, prefix string) {
		for i, ch := range n.Children {
			branch, next := "├── ", "│   "
			if i == len(n.Children)-1 {
				branch, next = "└── ", "    "
			}
			note := ""
			if ch.Repeated {
				note = ", see above"
			}
			fmt.Fprintf(b, "%s%s%s (%s%s)\n", prefix, branch, ch.ID, ch.Kind, note)
			walk(ch, prefix+next)
		}
	}
	walk(root, "")
}

// lineageResolves reports whether --lineage names a column of the
// pipeline, saying why not on stderr.
func lineageResolves(o options, snap *analysis.Snapshot, stderr io.Writer) bool {
	if o.lineage == "" {
		return true
	}
	if _, _, err := lineageOf(snap, o.lineage, nil); err != nil {
		fmt.Fprintf(stderr, "thund-watch: %v\n", err)
		return false
	}
	return true
}

// describedTypes describes every dataset on embedded DuckDB over the
// samples (LIMIT 0, as --columns does) for the column types the lineage
// prints; nil, and no types printed, when the description cannot run.
func describedTypes(snap *analysis.Snapshot) func(string) map[string]string {
	sess, err := engine.Open(snap.Root, watch.Limits(engine.Options{}, snap.Project.Config))
	if err != nil {
		return nil
	}
	defer sess.Close()
	res, err := schema.Describe(context.Background(), sess, snap)
	if err != nil {
		return nil
	}
	types := map[string]map[string]string{}
	for _, d := range snap.Pipeline.Datasets {
		m := map[string]string{}
		for _, c := range res.Columns(d.Name) {
			m[strings.ToLower(c.Name)] = c.Type
		}
		types[ir.NameKey(d.Name)] = m
	}
	return func(dataset string) map[string]string { return types[ir.NameKey(dataset)] }
}
