package analysis

import (
	"fmt"
	"maps"
	"math/rand"
	"testing"
)

// TestTextLayersEqualMap applies random sets and removals to a chain of
// derived layers and to plain maps, and checks after every step that
// each layer still answers as its map (a derived layer's change must
// never show through its parent, before or after a fold).
func TestTextLayersEqualMap(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	type gen struct {
		l textLayers
		m map[string]string
	}
	base := map[string]string{}
	for i := 0; i < 50; i++ {
		base[fmt.Sprintf("p%d", i)] = fmt.Sprint(i)
	}
	chain := []gen{{newTextLayers(maps.Clone(base)), maps.Clone(base)}}
	check := func(step int) {
		for gi, g := range chain {
			got := map[string]string{}
			g.l.each(func(p, v string) { got[p] = v })
			if !maps.Equal(got, g.m) {
				t.Fatalf("step %d, layer %d: each gives %v, want %v", step, gi, got, g.m)
			}
			for i := 0; i < 80; i++ {
				p := fmt.Sprintf("p%d", i)
				v, ok := g.l.get(p)
				w, wok := g.m[p]
				if v != w || ok != wok || g.l.has(p) != wok {
					t.Fatalf("step %d, layer %d: get(%s) = %q %v, want %q %v", step, gi, p, v, ok, w, wok)
				}
			}
		}
	}
	for step := 0; step < 400; step++ {
		last := chain[len(chain)-1]
		next := gen{last.l.derive(), maps.Clone(last.m)}
		for k := 0; k < 1+r.Intn(4); k++ {
			p := fmt.Sprintf("p%d", r.Intn(80))
			if r.Intn(3) == 0 {
				next.l.remove(p)
				delete(next.m, p)
			} else {
				v := fmt.Sprintf("s%d", step)
				next.l.set(p, v)
				next.m[p] = v
			}
		}
		chain = append(chain, next)
		if len(chain) > 6 {
			chain = chain[1:]
		}
		check(step)
	}
}
