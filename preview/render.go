package preview

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/thund-dev/thund/internal/javanum"
)

// Cell formats one value for a terminal or HTML cell; NULL is "NULL".
func Cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case json.Number:
		return v.String()
	case float64:
		return JavaDouble(v, 64)
	case float32:
		return JavaDouble(float64(v), 32)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// JavaDouble writes f as Spark shows a DOUBLE (bits 64) or FLOAT (bits
// 32): Java's Double.toString / Float.toString ("8.0", "1.0E7", "1.5E-4"),
// with the digits of the JDK Spark runs on (javanum).
func JavaDouble(f float64, bits int) string { return javanum.Format(f, bits) }

// TableOptions style a terminal table.
type TableOptions struct {
	// Color dims NULLs and bolds the header with ANSI escapes.
	Color bool
	// MaxWidth truncates cells wider than this many characters (0: 40).
	MaxWidth int
}

// WriteTable renders rows as an aligned text table with a header of column
// names and types (Spark's names, SparkType), and a footer line with the
// row count.
func WriteTable(w io.Writer, p *Page, o TableOptions) error {
	if o.MaxWidth == 0 {
		o.MaxWidth = 40
	}
	cells := make([][]string, len(p.Rows))
	widths := make([]int, len(p.Columns))
	for c, col := range p.Columns {
		widths[c] = max(width(col.Name), width(SparkType(col.Type)))
	}
	cut := map[[2]int]int{}
	for _, t := range p.Truncated {
		cut[[2]int{t.Row, t.Column}] = t.Bytes
	}
	for r, row := range p.Rows {
		cells[r] = make([]string, len(row))
		for c, v := range row {
			s := strings.ReplaceAll(Cell(v), "\n", "↵")
			if n, ok := cut[[2]int{r, c}]; ok {
				// Keep the note in sight: narrow the kept part instead.
				note := TruncatedNote(n)
				s = clipRunes(strings.TrimSuffix(s, note), max(o.MaxWidth-width(note), 1)) + note
			} else {
				s = truncate(s, o.MaxWidth)
			}
			cells[r][c] = s
			if c < len(widths) {
				widths[c] = max(widths[c], width(s))
			}
		}
	}
	var b strings.Builder
	line := func(vals []string, style func(int, string) string) {
		for c, v := range vals {
			if c > 0 {
				b.WriteString(" │ ")
			}
			pad := widths[c] - width(v)
			if style != nil {
				v = style(c, v)
			}
			b.WriteString(v)
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString("\n")
	}
	names := make([]string, len(p.Columns))
	types := make([]string, len(p.Columns))
	for c, col := range p.Columns {
		names[c], types[c] = col.Name, SparkType(col.Type)
	}
	bold, dim, reset := "", "", ""
	if o.Color {
		bold, dim, reset = "\x1b[1m", "\x1b[2m", "\x1b[0m"
	}
	line(names, func(_ int, s string) string { return bold + s + reset })
	line(types, func(_ int, s string) string { return dim + s + reset })
	seps := make([]string, len(widths))
	for c, wd := range widths {
		seps[c] = strings.Repeat("─", wd)
	}
	b.WriteString(strings.Join(seps, "─┼─") + "\n")
	for r, row := range cells {
		line(row, func(c int, s string) string {
			if p.Rows[r][c] == nil {
				return dim + s + reset
			}
			return s
		})
	}
	shown := fmt.Sprintf("%d rows", p.TotalRows)
	if p.TotalRows == 1 {
		shown = "1 row"
	}
	if int64(len(p.Rows)) < p.TotalRows {
		shown = fmt.Sprintf("%d of %s", len(p.Rows), shown)
	}
	fmt.Fprintf(&b, "%s%s%s\n", dim, shown, reset)
	if p.Cut != "" {
		fmt.Fprintf(&b, "%s%s%s\n", dim, p.Cut, reset)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteHTML renders the page as a self-contained HTML table (no scripts,
// no remote resources); NULL cells carry class "null".
func WriteHTML(w io.Writer, p *Page) error {
	var b strings.Builder
	b.WriteString("<table class=\"thund-preview\">\n<thead><tr>")
	for _, c := range p.Columns {
		typ := SparkType(c.Type)
		fmt.Fprintf(&b, "<th title=\"%s\">%s<br><small>%s</small></th>", html.EscapeString(typ), html.EscapeString(c.Name), html.EscapeString(typ))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range p.Rows {
		b.WriteString("<tr>")
		for _, v := range row {
			if v == nil {
				b.WriteString("<td class=\"null\">NULL</td>")
				continue
			}
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(Cell(v)))
		}
		b.WriteString("</tr>\n")
	}
	fmt.Fprintf(&b, "</tbody>\n</table>\n<p class=\"thund-count\">%d of %d rows</p>\n", len(p.Rows), p.TotalRows)
	if p.Cut != "" {
		fmt.Fprintf(&b, "<p class=\"thund-cut\">%s</p>\n", html.EscapeString(p.Cut))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func width(s string) int { return utf8.RuneCountInString(s) }

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipRunes keeps the first n characters of s.
func clipRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// JSONRows makes rows scanned through database/sql JSON-ready the way
// Value does for Arrow cells: times as ISO strings, bytes as text, the
// rest as they are; a string longer than MaxValueBytes is cut and ends
// with TruncatedNote.
func JSONRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			switch v := v.(type) {
			case time.Time:
				out[i][j] = v.UTC().Format("2006-01-02T15:04:05.999999999")
			case []byte:
				out[i][j], _, _ = clipString(string(v))
			case string:
				out[i][j], _, _ = clipString(v)
			case float64:
				out[i][j] = Finite(v)
			case float32:
				out[i][j] = Finite(float64(v))
			default:
				out[i][j] = v
			}
		}
	}
	return out
}
