package lex

import (
	"fmt"
	"strings"
)

// render writes tokens as "Kind[start:end]", an identifier that is a
// keyword as "Ident/TOKEN[start:end]".
func render(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Kind.String())
		if t.Keyword != NoKeyword {
			b.WriteString("/" + t.Keyword.Token())
		}
		fmt.Fprintf(&b, "[%d:%d]", t.Start, t.End)
	}
	return b.String()
}
