package sdplower

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/pb"
)

// Phase is where a flow (or the run) is, as Spark's event text says it,
// in lower case (the engine's phases use the same words).
type Phase string

// Phases Spark 4.1 reports.
const (
	Queued    Phase = "queued"
	Planning  Phase = "planning"
	Starting  Phase = "starting"
	Running   Phase = "running"
	Completed Phase = "completed"
	Failed    Phase = "failed"
	Skipped   Phase = "skipped"
	Excluded  Phase = "excluded"
	Idle      Phase = "idle"
	Stopped   Phase = "stopped"
	Canceled  Phase = "canceled"
)

// Event is one pipeline event, with what Thund could read from its text.
type Event struct {
	Time time.Time
	// Dataset and Flow are Thund's names for the flow the event is about
	// (empty for a run-level event or text Thund does not recognise).
	Dataset string
	Flow    string
	// Phase is empty when the text names none.
	Phase Phase
	// Run marks a run-level event ("Run is COMPLETED.").
	Run bool
	// Resolution marks a flow Spark could not analyse.
	Resolution bool
	// Message is Spark's text as sent; Error the error part of a failure,
	// without the plan Spark appends; Class its error class.
	Message string
	Error   string
	Class   string
	// Loc is the flow's query in its file, or the exact place Spark
	// points to.
	Loc ir.Loc
}

var (
	flowPhaseRe    = regexp.MustCompile(`^Flow (?:'(.+?)'|(\S+)) (?:is|has) ([A-Z_]+)\.`)
	resolveFailRe  = regexp.MustCompile(`^Failed to resolve flow: '(.+?)'\.`)
	runPhaseRe     = regexp.MustCompile(`^Run is ([A-Z_]+)\.`)
	sqlStateRe     = regexp.MustCompile(`SQLSTATE: [0-9A-Z]{5}(; line \d+ pos \d+)?`)
	linePosRe      = regexp.MustCompile(`line (\d+),? pos (\d+)`)
	errorClassRe   = regexp.MustCompile(`^\[([A-Z0-9_.]+)\]`)
	spaceOrQuotesR = strings.NewReplacer("`", "", `"`, "")
)

// ParseEvent reads the flow, phase and error out of a Spark 4.1 event
// text. Names are as Spark prints them (qualified); Push maps them back.
func ParseEvent(msg string) (flow string, phase Phase, run, resolution bool, errText string) {
	head, rest, _ := strings.Cut(msg, "\n")
	if m := flowPhaseRe.FindStringSubmatch(head); m != nil {
		flow = m[1] + m[2]
		phase = Phase(strings.ToLower(m[3]))
	} else if m := resolveFailRe.FindStringSubmatch(head); m != nil {
		flow, phase, resolution = m[1], Failed, true
	} else if m := runPhaseRe.FindStringSubmatch(head); m != nil {
		phase, run = Phase(strings.ToLower(m[1])), true
	}
	if i := strings.Index(rest, "Error: "); i >= 0 && strings.TrimSpace(rest[:i]) == "" {
		errText = trimPlan(rest[i+len("Error: "):])
	}
	return flow, phase, run, resolution, errText
}

// trimPlan keeps Spark's error message and drops the logical plan it
// appends after "SQLSTATE: xxxxx; line n pos m;".
func trimPlan(s string) string {
	if loc := sqlStateRe.FindStringIndex(s); loc != nil {
		return strings.TrimSpace(s[:loc[1]])
	}
	return strings.TrimSpace(s)
}

// mapper maps Spark's names back to Thund's datasets, flows and files.
type mapper struct {
	g *Graph
	// byName maps a name key (qualified as the server resolved it, and
	// bare) to a flow or output.
	flows   map[string]*Flow
	outputs map[string]*Output
	files   map[string]*SQLFile
}

func newMapper(g *Graph) *mapper {
	m := &mapper{g: g, flows: map[string]*Flow{}, outputs: map[string]*Output{}, files: map[string]*SQLFile{}}
	for _, o := range g.Outputs {
		m.outputs[ir.NameKey(o.Name)] = o
	}
	for _, f := range g.Flows {
		m.flows[ir.NameKey(f.Name)] = f
	}
	for _, f := range g.Files {
		for _, n := range append(append([]string(nil), f.Datasets...), f.Flows...) {
			m.files[ir.NameKey(n)] = f
		}
	}
	return m
}

func identKey(id *pb.ResolvedIdentifier) string {
	parts := []string{}
	if id.GetCatalogName() != "" {
		parts = append(parts, id.GetCatalogName())
	}
	parts = append(parts, id.GetNamespace()...)
	parts = append(parts, id.GetTableName())
	return ir.NameKey(strings.Join(parts, "."))
}

func (m *mapper) noteOutput(name string, id *pb.ResolvedIdentifier) {
	if id != nil && id.GetTableName() != "" {
		m.outputs[identKey(id)] = m.outputs[ir.NameKey(name)]
	}
}

func (m *mapper) noteFlow(f *Flow, id *pb.ResolvedIdentifier) {
	if id != nil && id.GetTableName() != "" {
		m.flows[identKey(id)] = f
	}
}

// lookup finds what a Spark name means: a flow we defined, or a file that
// defines it. It tries the name as given, then its last part.
func (m *mapper) lookup(sparkName string) (*Flow, *SQLFile, string) {
	key := ir.NameKey(spaceOrQuotesR.Replace(sparkName))
	last := key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		last = key[i+1:]
	}
	for _, k := range []string{key, last} {
		if f := m.flows[k]; f != nil {
			return f, nil, f.Name
		}
	}
	if f := m.files[last]; f != nil {
		for _, n := range append(append([]string(nil), f.Flows...), f.Datasets...) {
			if ir.NameKey(n) == last {
				return nil, f, n
			}
		}
	}
	return nil, nil, last
}

// parse turns a raw event into an Event with Thund's names.
func (m *mapper) parse(e sparkconnect.Event) Event {
	ev := Event{Time: e.Time, Message: e.Message}
	flow, phase, run, resolution, errText := ParseEvent(e.Message)
	ev.Phase, ev.Run, ev.Resolution, ev.Error = phase, run, resolution, errText
	if c := errorClassRe.FindStringSubmatch(errText); c != nil {
		ev.Class = c[1]
	}
	if flow == "" {
		return ev
	}
	f, file, name := m.lookup(flow)
	switch {
	case f != nil:
		ev.Flow, ev.Dataset, ev.Loc = f.Name, f.reported(), f.QueryLoc
		if errText != "" {
			ev.Loc = pointInQuery(f.QueryLoc, f.SQL, f.Shift, errText)
		}
	case file != nil:
		ev.Flow, ev.Dataset = name, m.datasetOf(file, name)
		ev.Loc = fileLoc(file, name, errText)
	default:
		ev.Flow, ev.Dataset = name, name
	}
	return ev
}

func (m *mapper) datasetOf(file *SQLFile, name string) string {
	for _, d := range file.Datasets {
		if ir.NameKey(d) == ir.NameKey(name) {
			return d
		}
	}
	return name
}

func (m *mapper) failure(ev Event) Failure {
	return Failure{Dataset: ev.Dataset, Flow: ev.Flow, Resolution: ev.Resolution, Message: ev.Error, Class: ev.Class, Loc: ev.Loc}
}

// defineFailure maps an error from a define call (a parse error in a
// flow's SQL, say) to the dataset and flow being defined.
func (m *mapper) defineFailure(dataset, flow string, err error) []Failure {
	msg, class := serverText(err)
	if msg == "" {
		return nil
	}
	f := Failure{Dataset: dataset, Flow: flow, Resolution: true, Message: trimPlan(msg), Class: class}
	if fl := m.flows[ir.NameKey(flow)]; fl != nil {
		f.Loc = pointInQuery(fl.QueryLoc, fl.SQL, fl.Shift, msg)
	} else if o := m.outputs[ir.NameKey(dataset)]; o != nil {
		f.Loc = o.Loc
	}
	return []Failure{f}
}

// fileFailure maps an error from DefineSqlGraphElements to its file.
func (m *mapper) fileFailure(file *SQLFile, err error) []Failure {
	msg, class := serverText(err)
	if msg == "" {
		return nil
	}
	name := ""
	if len(file.Datasets) > 0 {
		name = file.Datasets[0]
	}
	return []Failure{{Dataset: name, Resolution: true, Message: firstParagraph(msg), Class: class, Loc: fileLoc(file, "", msg)}}
}

// serverText returns the server's message and class of a call error, or
// "" when the error is not the server's verdict on the pipeline (a server
// that is down, a timeout).
func serverText(err error) (string, string) {
	var se *sparkconnect.Error
	if errors.As(err, &se) && se.Kind == sparkconnect.Server {
		return se.Message, se.Class
	}
	return "", ""
}

func firstParagraph(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return strings.TrimSpace(s)
}

// fileLoc places an error about name (a flow or dataset; "" when
// unknown) of a file sent as written. Spark counts lines from the start of
// the statement, which begins right after the previous statement's `;`:
// the statement is the one holding name's query, or the text Spark quotes
// after "== SQL ==" (parse errors). Without either, the error is placed at
// the start of the file (or at the query, for a synthetic file).
func fileLoc(f *SQLFile, name, msg string) ir.Loc {
	if f.Synthetic {
		return pointInQuery(f.QueryLoc, f.Text, f.Offset, msg)
	}
	loc := ir.Loc{File: f.Path}
	line, pos, ok := linePos(msg)
	if !ok {
		if q, ok := f.Queries[ir.NameKey(name)]; ok {
			return q
		}
		return loc
	}
	start := -1
	if q, ok := f.Queries[ir.NameKey(name)]; ok {
		start = 0
		for _, b := range statementStarts(f.Text) {
			if b <= q.Start {
				start = b
			}
		}
	} else if quoted := quotedSQL(msg); strings.TrimSpace(quoted) != "" {
		start = strings.Index(f.Text, quoted)
	}
	if start < 0 {
		return loc
	}
	if off, ok := offsetOf(f.Text[start:], line, pos); ok {
		loc.Start, loc.End = start+off, tokenEnd(f.Text, start+off)
	}
	return loc
}

// quotedSQL returns the statement text Spark quotes in a parse error,
// between "== SQL ==" and its caret line (the lines before the error's
// position, which locate the statement in the file).
func quotedSQL(msg string) string {
	_, after, ok := strings.Cut(msg, "== SQL ==\n")
	if !ok {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(after, "\n") {
		if strings.Trim(l, "-") != "" && strings.Trim(l, "-^") == "" {
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// statementStarts returns the offset after each `;` that ends a statement
// (outside comments, strings and quoted names), plus 0.
func statementStarts(text string) []int {
	out := []int{0}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(text)
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(text)
			}
		case c == '\'' || c == '"' || c == '`':
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' && c != '`' {
					i++
				}
			}
		case c == ';':
			out = append(out, i+1)
		}
	}
	return out
}

// pointInQuery maps Spark's "line L pos P" in text (the text sent, whose
// query starts at byte shift) into the query's range q in its file;
// without a usable position it returns the whole query.
func pointInQuery(q ir.Loc, text string, shift int, msg string) ir.Loc {
	line, pos, ok := linePos(msg)
	if !ok {
		return q
	}
	off, ok := offsetOf(text, line, pos)
	if !ok || off < shift {
		return q
	}
	return ir.Loc{File: q.File, Start: q.Start + off - shift, End: q.Start + tokenEnd(text, off) - shift}
}

func linePos(msg string) (line, pos int, ok bool) {
	m := linePosRe.FindStringSubmatch(msg)
	if m == nil {
		return 0, 0, false
	}
	line, _ = strconv.Atoi(m[1])
	pos, _ = strconv.Atoi(m[2])
	return line, pos, line >= 1
}

// offsetOf returns the byte offset of 1-based line and 0-based character
// position pos in text.
func offsetOf(text string, line, pos int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for n := 0; n < pos; n++ {
		if off >= len(text) || text[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRuneInString(text[off:])
		off += size
	}
	return off, true
}

// tokenEnd returns the end of the identifier or word at off (at least one
// character past off).
func tokenEnd(text string, off int) int {
	end := off
	if end < len(text) && text[end] == '`' {
		if i := strings.IndexByte(text[end+1:], '`'); i >= 0 {
			return end + i + 2
		}
	}
	for end < len(text) {
		c := text[end]
		if !(c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80) {
			break
		}
		end++
	}
	if end == off && off < len(text) {
		end++
	}
	return end
}
