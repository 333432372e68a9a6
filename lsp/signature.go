package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"
)

// signatureHelp answers textDocument/signatureHelp inside the parentheses
// of a call to a Spark built-in function: every usage of the function
// (count(*), count(expr[, expr...]), ...), each with its parameters, the
// one being typed active.
func (s *Server) signatureHelp(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.SignatureHelpParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, &p.Position)
	if err != nil {
		return nil, nil
	}
	text, _ := dp.snap.Text(dp.rel)
	lo, _ := statementAround(text, dp.off)
	if f := flowAt(dp.snap, dp.rel, dp.off); f != nil && f.QueryLoc.Start <= dp.off {
		lo = f.QueryLoc.Start
	}
	// Inside a string argument (a date format) the help still shows; in
	// a comment it does not.
	st := scanTo(text, lo, dp.off)
	if st.comment {
		return nil, nil
	}
	backends := dp.snap.Backends()
	// The innermost open call of a known function: in f(a, g(|)) it is g;
	// in f(a, (|)) the parenthesis names nothing, and f is the call.
	for i := len(st.calls) - 1; i >= 0; i-- {
		call := st.calls[i]
		if call.name == "" {
			continue
		}
		_, fn := lookupFunction(backends, call.name)
		if fn == nil || dp.snap.Pipeline.Resolve(call.name) != nil {
			return nil, nil
		}
		return signaturesOf(fn, call.commas), nil
	}
	return nil, nil
}

// signaturesOf builds the signature help of a function with the cursor on
// argument number active (0-based).
func signaturesOf(fn *SparkFunction, active int) *protocol.SignatureHelp {
	out := &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{}}
	chosen := -1
	for i, u := range fn.Usages {
		params := signatureParams(u.Signature)
		si := protocol.SignatureInformation{Label: u.Signature, Parameters: []protocol.ParameterInformation{}}
		if u.Summary != "" {
			si.Documentation = u.Summary
		}
		for _, pr := range params {
			si.Parameters = append(si.Parameters, protocol.ParameterInformation{Label: pr})
		}
		out.Signatures = append(out.Signatures, si)
		if chosen < 0 && (len(params) > active || variadic(u.Signature)) {
			chosen = i
		}
	}
	if chosen < 0 {
		chosen = 0
	}
	out.ActiveSignature = uint32(chosen)
	if n := len(out.Signatures[chosen].Parameters); n > 0 {
		out.ActiveParameter = uint32(min(active, n-1))
	}
	return out
}

// variadic reports whether a signature takes any number of arguments
// (expr1, expr2, ... or expr[, expr...]).
func variadic(sig string) bool { return strings.Contains(sig, "...") }

// signatureParams returns the parameter labels of a signature such as
// window(time_column, window_duration[, slide_duration[, start_time]]):
// time_column, window_duration, slide_duration, start_time. Each label is
// a substring of the signature, so clients can highlight it. A signature
// without parentheses (an operator, expr1 + expr2) has none.
func signatureParams(sig string) []string {
	open := strings.IndexByte(sig, '(')
	if open < 0 || !strings.HasSuffix(sig, ")") {
		return nil
	}
	inner := sig[open+1 : len(sig)-1]
	var out []string
	depth := 0
	start := 0
	flush := func(end int) {
		p := strings.Trim(inner[start:end], " []")
		p = strings.TrimSuffix(p, "...")
		p = strings.Trim(p, " []")
		if p != "" && p != "..." {
			out = append(out, p)
		}
	}
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	flush(len(inner))
	return out
}
