package lex

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAgainstSpark compares the lexer with Spark's own, token for token, on
// every input of the other tests, every keyword spelling and many random
// texts; Unquote with the values Spark's parser gives the same literals;
// and the keyword table with Spark's parser rules. It needs a JDK and
// Spark's jars, so it runs only when THUND_SPARK_JARS names the folder that
// holds them, for instance the jars folder of the pyspark that
// scripts/spark.sh installs:
//
//	THUND_SPARK_JARS=~/.cache/thund/spark/venv-4.1.4/lib/python3.11/site-packages/pyspark/jars \
//	  go test -run TestAgainstSpark ./analysis/sparksql/lex
//
// Lex departs from Spark in one place, recovery from an unclosed quote,
// so the comparison is made with lexSpark, which recovers as Spark does.
func TestAgainstSpark(t *testing.T) {
	jars := os.Getenv("THUND_SPARK_JARS")
	if jars == "" {
		t.Skip("THUND_SPARK_JARS is not set")
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("no javac")
	}
	classes := t.TempDir()
	cp := filepath.Join(jars, "*")
	if out, err := exec.Command(javac, "-d", classes, "-cp", cp, filepath.Join("testdata", "SparkOracle.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	oracle := func(mode string, inputs []string) []string {
		t.Helper()
		cmd := exec.Command("java", "-cp", cp+string(os.PathListSeparator)+classes, "SparkOracle", mode)
		cmd.Stdin = strings.NewReader(strings.Join(inputs, "\x00"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("SparkOracle %s: %v\n%s", mode, err, stderr.Bytes())
		}
		return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	}

	t.Run("lex", func(t *testing.T) {
		inputs := oracleInputs()
		lines := oracle("lex", inputs)
		n := 0
		for _, src := range inputs {
			var spark []string
			unclosed := false
			for ; n < len(lines); n++ {
				if v, ok := strings.CutPrefix(lines[n], "= unclosed="); ok {
					unclosed = v == "true"
					n++
					break
				}
				f := strings.Fields(lines[n])
				if len(f) != 4 {
					t.Fatalf("bad oracle line %q", lines[n])
				}
				if f[0] == "WS" {
					continue
				}
				start, _ := strconv.Atoi(f[1])
				end, _ := strconv.Atoi(f[2])
				if f[0] == "SIMPLE_COMMENT" && !strings.HasSuffix(src[start:end], "\\\n") {
					// Spark's comment ends after the line break that ends it
					// (a backslash and a line feed continue it instead).
					text := src[start:end]
					text = strings.TrimSuffix(text, "\n")
					text = strings.TrimSuffix(text, "\r")
					end = start + len(text)
				}
				spark = append(spark, fmt.Sprintf("%s[%d:%d]", f[0], start, end))
			}
			var ours []string
			ourUnclosed := false
			for _, tok := range lexSpark(src) {
				name := tok.Kind.SparkName()
				if tok.Keyword != NoKeyword {
					name = tok.Keyword.Token()
				}
				ourUnclosed = ourUnclosed || tok.Kind == UnterminatedComment
				ours = append(ours, fmt.Sprintf("%s[%d:%d]", name, tok.Start, tok.End))
			}
			if strings.Join(ours, " ") != strings.Join(spark, " ") || ourUnclosed != unclosed {
				t.Errorf("%q:\n ours:  %s (unclosed %v)\n Spark: %s (unclosed %v)", src, strings.Join(ours, " "), ourUnclosed, strings.Join(spark, " "), unclosed)
			}
		}
		t.Logf("%d texts compared", len(inputs))
	})

	t.Run("unquote", func(t *testing.T) {
		var lits []string
		seen := map[string]bool{}
		add := func(s string) {
			if !seen[s] && !strings.Contains(s, "\x00") {
				seen[s] = true
				lits = append(lits, s)
			}
		}
		for _, c := range unquoteCases {
			add(c.lit)
		}
		for _, src := range oracleInputs() {
			for _, tok := range Lex(src) {
				if tok.Kind.IsString() {
					add(tok.Text)
				}
			}
		}
		lines := oracle("unquote", lits)
		for i, lit := range lits {
			want, ok := strings.CutPrefix(lines[i], "OK ")
			if !ok {
				t.Errorf("Spark parses no literal from %q: %s", lit, lines[i])
				continue
			}
			got, err := Unquote(Lex(lit)[0])
			if err != nil || hex.EncodeToString([]byte(got)) != want {
				w, _ := hex.DecodeString(want)
				t.Errorf("Unquote(%q) = %q, %v; Spark %q", lit, got, err, w)
			}
		}
		t.Logf("%d literals compared", len(lits))
	})

	t.Run("keywords", func(t *testing.T) {
		lines := oracle("keywords", []string{""})
		sc := bufio.NewScanner(strings.NewReader(strings.Join(lines, "\n")))
		var ks []string
		for sc.Scan() {
			ks = append(ks, sc.Text())
		}
		var ours []string
		for _, k := range AllKeywords() {
			ours = append(ours, fmt.Sprintf("%s reserved=%v strict=%v", k.Token(), k.ReservedANSI(), k.StrictNonReserved()))
		}
		if strings.Join(ours, "\n") != strings.Join(ks, "\n") {
			t.Errorf("keyword table differs from Spark's grammar:\nours:\n%s\nSpark:\n%s", strings.Join(ours, "\n"), strings.Join(ks, "\n"))
		}
	})
}

// oracleInputs returns the texts TestAgainstSpark lexes: the inputs of the
// table tests, each keyword spelling in three cases, and random texts made
// of fragments that meet at the grammar's decision points.
func oracleInputs() []string {
	var in []string
	for _, c := range lexCases {
		if utf8.ValidString(c.src) && !strings.Contains(c.src, "\x00") {
			in = append(in, c.src)
		}
	}
	for _, k := range AllKeywords() {
		for _, w := range k.Spellings() {
			in = append(in, w, strings.ToLower(w), w[:1]+strings.ToLower(w[1:])+" "+w+"x")
		}
	}
	fragments := strings.Fields(`' " ` + "` ``" + ` \ \\ / * + - -- /* */ /*+ . .. : :: :// = == < > >> >>> <= >= <=> <> != !> !< ! | || |> & ? ; , ( ) [ ]
		a e E r R x X L S Y D F B BD d f l s y 0 1 9 12 _ é ı ſ ͅ 日本 😀 𝐀 $ # % { } @ ~ ^
		ARRAY MAP STRUCT array< map< struct< INT select REGEXP temp file s3 e10 e+ e- 1. .5 1e 1.5 '' "" ''' 'a' "a" r' R"`)
	fragments = append(fragments, " ", "  ", "\n", "\r", "\r\n", "\t", "\f", "\v", "\u00a0", "\u2028", "\u2029", "\u3000", "\ufeff", "\u0085", "\\\n")
	n := 30000 // THUND_SPARK_TEXTS asks for more
	if v, err := strconv.Atoi(os.Getenv("THUND_SPARK_TEXTS")); err == nil {
		n = v
	}
	rng := rand.New(rand.NewPCG(15, 41))
	for range n {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		in = append(in, b.String())
	}
	return in
}
