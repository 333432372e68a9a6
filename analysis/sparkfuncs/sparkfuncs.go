// Package sparkfuncs holds the catalogs of Spark's built-in functions, one
// per Spark release, generated from a real Spark server by
// scripts/gen-functions.sh (never edited by hand): names, signatures, the
// first example of each. Analysis checks that a called function exists
// (Spark's UNRESOLVED_ROUTINE); the language server completes, hovers and
// helps with signatures from them.
package sparkfuncs

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:embed catalogs/spark-*.json
var files embed.FS

// Function is one built-in function of a Spark release, as DESCRIBE
// FUNCTION EXTENDED documents it.
type Function struct {
	Name   string  `json:"name"`
	Class  string  `json:"class"`
	Usages []Usage `json:"usages"`
	// Example is the first example of Spark's documentation.
	Example *struct {
		Query  string `json:"query"`
		Result string `json:"result"`
	} `json:"example"`
	Since string `json:"since"`
}

// Usage is one form of a function: its signature, optional arguments in
// brackets, and the first sentence of what it does.
type Usage struct {
	Signature string `json:"signature"`
	Summary   string `json:"summary"`
}

// Catalog is the catalog of one Spark release.
type Catalog struct {
	SparkVersion string     `json:"spark_version"`
	Functions    []Function `json:"functions"`
	byName       map[string]*Function
}

// Lookup returns the function of that name (any case), or nil.
func (c *Catalog) Lookup(name string) *Function {
	if c == nil {
		return nil
	}
	return c.byName[strings.ToLower(name)]
}

var (
	once     sync.Once
	catalogs []*Catalog // by version, oldest first
	loadErr  error
)

// Catalogs returns the embedded catalogs, oldest release first (read once).
func Catalogs() ([]*Catalog, error) {
	once.Do(func() {
		names, err := files.ReadDir("catalogs")
		if err != nil {
			loadErr = fmt.Errorf("function catalogs: %w", err)
			return
		}
		for _, e := range names {
			b, err := files.ReadFile(path.Join("catalogs", e.Name()))
			if err != nil {
				loadErr = fmt.Errorf("function catalog %s: %w", e.Name(), err)
				return
			}
			c := &Catalog{}
			if err := json.Unmarshal(b, c); err != nil {
				loadErr = fmt.Errorf("function catalog %s: %w", e.Name(), err)
				return
			}
			c.byName = make(map[string]*Function, len(c.Functions))
			for i := range c.Functions {
				c.byName[strings.ToLower(c.Functions[i].Name)] = &c.Functions[i]
			}
			catalogs = append(catalogs, c)
		}
		sort.Slice(catalogs, func(i, j int) bool { return VersionLess(catalogs[i].SparkVersion, catalogs[j].SparkVersion) })
	})
	return catalogs, loadErr
}

// VersionLess compares dotted version numbers numerically.
func VersionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		var x, y int
		fmt.Sscan(pa[i], &x)
		fmt.Sscan(pb[i], &y)
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// Of returns the catalog of a Spark version ("4.2") among cs: the newest
// catalog of that version (4.2.x), else the newest older one, else the
// oldest there is; nil when cs is empty.
func Of(cs []*Catalog, want string) *Catalog {
	if len(cs) == 0 {
		return nil
	}
	var best *Catalog
	for _, c := range cs {
		if c.SparkVersion == want || strings.HasPrefix(c.SparkVersion, want+".") || VersionLess(c.SparkVersion, want) {
			best = c
		}
	}
	if best == nil {
		return cs[0]
	}
	return best
}

// Known reports whether any catalog has a function of that name: a
// function of some Spark release Thund knows.
func Known(name string) bool {
	cs, _ := Catalogs()
	for _, c := range cs {
		if c.Lookup(name) != nil {
			return true
		}
	}
	return false
}

// Names returns the names of every function of any catalog, lower case,
// sorted and without duplicates.
func Names() []string {
	cs, _ := Catalogs()
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		for _, f := range c.Functions {
			n := strings.ToLower(f.Name)
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
