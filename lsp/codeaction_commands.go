package lsp

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// LensCommands are the commands of the code lenses, which
// workspace/executeCommand runs: thund.preview (thund/preview),
// thund.runDownstream (thund/run of the dataset and its downstream cone)
// and thund.sparkDryRun (thund/sparkDryRun). Each takes the lens's one
// argument, {"uri": ..., "dataset": ...}.
var LensCommands = []string{"thund.preview", "thund.runDownstream", "thund.sparkDryRun"}

// clientRunsCommands reports whether a client registers the lens
// commands itself, so the server must not announce them: VS Code and the
// editors built on it, code-server included (the Thund extension defines
// them, and vscode-languageclient refuses to register a command twice,
// failing the server's initialization).
func clientRunsCommands(clientName string) bool {
	n := strings.ToLower(clientName)
	for _, vs := range []string{"visual studio code", "vscodium", "code - oss", "code-server", "cursor", "windsurf"} {
		if strings.Contains(n, vs) {
			return true
		}
	}
	return false
}

// executeCommand runs a code lens's command: the custom request it stands
// for, with the lens's argument as its params, and answers that request's
// result.
func (s *Server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var h handler
	switch p.Command {
	case "thund.preview":
		h = s.preview
	case "thund.runDownstream":
		h = s.run
	case "thund.sparkDryRun":
		h = s.sparkDryRun
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workspace/executeCommand: unknown command %q; the commands are %s", p.Command, strings.Join(LensCommands, ", "))
	}
	if len(p.Arguments) != 1 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workspace/executeCommand: %s takes one argument, {\"uri\": ..., \"dataset\": ...}; got %d", p.Command, len(p.Arguments))
	}
	return h(ctx, p.Arguments[0])
}

var (
	versionOnce sync.Once
	version     string
)

// Version is thund-lsp's version, for initialize's serverInfo: the main
// module's version when built from a tagged module, else "devel" with
// the VCS revision the binary was built from (and "+dirty" for a
// modified tree) when Go recorded one.
func Version() string {
	versionOnce.Do(func() {
		version = "devel"
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
			return
		}
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			version += " " + rev[:min(12, len(rev))]
			if dirty {
				version += "+dirty"
			}
		}
	})
	return version
}
