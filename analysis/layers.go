package analysis

import "maps"

// foldAt is the number of paths an overlay holds before it is folded
// into a new base.
const foldAt = 64

// textLayers maps paths to texts for one snapshot without copying every
// text on each update: a base that no snapshot changes, shared by the
// snapshots that descend from the one that made it, and this snapshot's
// own differences from it (a nil entry: the path has no text). An update
// copies the differences only, and folds them into a new base once they
// grow past foldAt paths; a keystroke in a pipeline of thousands of files
// then copies a handful of entries, not thousands.
type textLayers struct {
	base map[string]string
	over map[string]*string
}

// newTextLayers returns layers holding m (which the layers then own).
func newTextLayers(m map[string]string) textLayers { return textLayers{base: m} }

// get returns path's text.
func (t *textLayers) get(path string) (string, bool) {
	if v, ok := t.over[path]; ok {
		if v == nil {
			return "", false
		}
		return *v, true
	}
	v, ok := t.base[path]
	return v, ok
}

// has reports whether path has a text.
func (t *textLayers) has(path string) bool {
	_, ok := t.get(path)
	return ok
}

// set gives path a text.
func (t *textLayers) set(path, text string) {
	if t.over == nil {
		t.over = map[string]*string{}
	}
	t.over[path] = &text
}

// remove takes path's text away.
func (t *textLayers) remove(path string) {
	if _, ok := t.base[path]; !ok {
		delete(t.over, path)
		return
	}
	if t.over == nil {
		t.over = map[string]*string{}
	}
	t.over[path] = nil
}

// derive returns layers for a new snapshot: the same texts, sharing the
// base, with the differences copied (or folded into a new base).
func (t *textLayers) derive() textLayers {
	if len(t.over) < foldAt {
		return textLayers{base: t.base, over: maps.Clone(t.over)}
	}
	base := make(map[string]string, len(t.base)+len(t.over))
	t.each(func(p, v string) { base[p] = v })
	return textLayers{base: base}
}

// each calls f with every path and its text, in no order.
func (t *textLayers) each(f func(path, text string)) {
	for p, v := range t.base {
		if _, ok := t.over[p]; !ok {
			f(p, v)
		}
	}
	for p, v := range t.over {
		if v != nil {
			f(p, *v)
		}
	}
}
