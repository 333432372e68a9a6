package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sdplower"
	"github.com/thund-dev/thund/sparkconnect"
)

// SparkDryRunParams are the parameters of thund/sparkDryRun.
type SparkDryRunParams struct {
	URI protocol.DocumentURI `json:"uri"`
	// AllowRemote confirms that the pipeline may be sent to the server
	// thund.yaml names when it is not on this machine; without it such a
	// request is answered with CodeRemoteUnconfirmed and nothing is sent.
	AllowRemote bool `json:"allowRemote,omitempty"`
}

// CodeRemoteUnconfirmed is the JSON-RPC error code of a Spark dry run
// that thund.yaml would send to another machine, unconfirmed. The
// error's data is {"remote": "sc://..."}; the client asks the user, then
// repeats the request with allowRemote.
const CodeRemoteUnconfirmed jsonrpc2.Code = -32050

// loopbackRemote reports whether a Spark Connect address (sc://host:port)
// names this machine.
func loopbackRemote(remote string) bool {
	u, err := url.Parse(remote)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SparkProblem is one finding of a Spark dry run, at its file position.
type SparkProblem struct {
	Dataset string         `json:"dataset"`
	Message string         `json:"message"`
	URI     string         `json:"uri,omitempty"`
	Range   protocol.Range `json:"range"`
	// Refused is true when Thund refused to send the pipeline (a feature
	// the Spark version cannot run), before any call to the server.
	Refused bool `json:"refused"`
}

// SparkDryRunResult is the answer of thund/sparkDryRun.
type SparkDryRunResult struct {
	Remote   string         `json:"remote"`
	Backend  string         `json:"backend"`
	OK       bool           `json:"ok"`
	Problems []SparkProblem `json:"problems"`
	DefineMS int64          `json:"define_ms"`
	RunMS    int64          `json:"run_ms"`
}

// sparkDryRun lowers the pipeline for the configured Spark version and
// dry-runs it on the Spark Connect server of the settings (sparkRemote) or
// thund.yaml (spark.remote).
func (s *Server) sparkDryRun(ctx context.Context, params json.RawMessage) (any, error) {
	var p SparkDryRunParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.URI, nil)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/sparkDryRun: %v", err)
	}
	s.mu.Lock()
	remote := s.settings.SparkRemote
	s.mu.Unlock()
	cfg := dp.snap.Project.Config
	if remote == "" {
		// A folder's own thund.yaml may name any host: a folder from a
		// stranger must not send its SQL off this machine unasked.
		remote = cfg.SparkRemote
		if remote != "" && !loopbackRemote(remote) && !p.AllowRemote {
			data, _ := json.Marshal(map[string]string{"remote": remote})
			raw := json.RawMessage(data)
			return nil, &jsonrpc2.Error{Code: CodeRemoteUnconfirmed, Message: fmt.Sprintf("thund.yaml sends the dry run to %s, which is not this machine: confirm to send the pipeline's SQL there", remote), Data: &raw}
		}
	}
	if remote == "" {
		return nil, jsonrpc2.Errorf(RequestFailed, "no Spark Connect server configured: set thund.sparkRemote in the editor, or spark.remote in thund.yaml (e.g. sc://127.0.0.1:15002)")
	}
	// thund.yaml's Spark version (spark.version, else its backends);
	// spark-4.1, the default's, when it names none.
	backend, named := cfg.SparkBackend()
	if !named {
		backend = ir.Spark41
	}
	out := &SparkDryRunResult{Remote: remote, Backend: string(backend), Problems: []SparkProblem{}}
	texts := map[string]string{}
	for _, l := range dp.snap.Libraries {
		if t, ok := dp.snap.Text(l); ok {
			texts[l] = t
		}
	}
	g, diags := sdplower.LowerWith(dp.snap.Pipeline, backend, sdplower.Options{Texts: texts})
	if g == nil {
		for _, d := range diags {
			if d.Severity == ir.Error {
				out.Problems = append(out.Problems, s.sparkProblem(dp, "", d.Message, d.Loc, true))
			}
		}
		return out, nil
	}
	client, err := sparkconnect.Dial(ctx, remote, sparkconnect.Options{})
	if err != nil {
		return nil, jsonrpc2.Errorf(RequestFailed, "thund/sparkDryRun: %v", err)
	}
	defer client.Close()
	res, err := sdplower.Push(ctx, client, g, sdplower.Run{Dry: true}, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, jsonrpc2.Errorf(RequestCancelled, "thund/sparkDryRun cancelled")
		}
		return nil, jsonrpc2.Errorf(RequestFailed, "thund/sparkDryRun: %v", err)
	}
	out.DefineMS, out.RunMS = res.Define.Milliseconds(), res.RunTime.Milliseconds()
	for _, f := range res.Failures {
		out.Problems = append(out.Problems, s.sparkProblem(dp, f.Dataset, f.Message, f.Loc, false))
	}
	out.OK = len(out.Problems) == 0
	return out, nil
}

func (s *Server) sparkProblem(dp docPos, dataset, msg string, loc ir.Loc, refused bool) SparkProblem {
	p := SparkProblem{Dataset: dataset, Message: msg, Refused: refused}
	if loc.File != "" {
		l := locationOf(dp.snap, loc)
		p.URI, p.Range = string(l.URI), l.Range
	}
	return p
}
