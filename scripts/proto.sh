#!/usr/bin/env bash
# Regenerates sparkconnect/pb from proto/ with pinned tools, installed into
# the project's cache folder: protoc from the grpcio-tools wheel (PyPI),
# protoc-gen-go and protoc-gen-go-grpc with `go install`.
#
#   scripts/proto.sh          regenerate sparkconnect/pb
#   scripts/proto.sh check    also compare every message, field number, name
#                             and type with the descriptors each supported
#                             pyspark ships (scripts/spark.sh versions;
#                             installs them through scripts/spark.sh)
set -euo pipefail

GRPCIO_TOOLS_VERSION=1.85.1
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2
MODULE=github.com/thund-dev/thund

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE="${THUND_CACHE:-$HOME/.cache/thund}/protoc"
VENV="$CACHE/venv-grpcio-tools-$GRPCIO_TOOLS_VERSION"
BIN="$CACHE/bin"
GO="${GO:-go}"

say() { echo "proto.sh: $*" >&2; }

if ! [ -f "$VENV/.thund-installed" ]; then
	say "installing grpcio-tools $GRPCIO_TOOLS_VERSION (protoc) into $VENV"
	rm -rf "$VENV"
	python3 -m venv "$VENV"
	"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "grpcio-tools==$GRPCIO_TOOLS_VERSION"
	touch "$VENV/.thund-installed"
fi
mkdir -p "$BIN"
if ! [ -f "$BIN/.protoc-gen-go-$PROTOC_GEN_GO_VERSION" ]; then
	say "installing protoc-gen-go $PROTOC_GEN_GO_VERSION into $BIN"
	GOBIN="$BIN" "$GO" install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
	touch "$BIN/.protoc-gen-go-$PROTOC_GEN_GO_VERSION"
fi
if ! [ -f "$BIN/.protoc-gen-go-grpc-$PROTOC_GEN_GO_GRPC_VERSION" ]; then
	say "installing protoc-gen-go-grpc $PROTOC_GEN_GO_GRPC_VERSION into $BIN"
	GOBIN="$BIN" "$GO" install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION"
	touch "$BIN/.protoc-gen-go-grpc-$PROTOC_GEN_GO_GRPC_VERSION"
fi

cd "$ROOT"
protos=$(cd proto && find spark -name '*.proto' | sort)
rm -f sparkconnect/pb/*.pb.go
mkdir -p sparkconnect/pb
# `python -m grpc_tools.protoc` adds the bundled well-known types to the
# include path itself.
# shellcheck disable=SC2086
"$VENV/bin/python" -m grpc_tools.protoc -Iproto \
	--plugin=protoc-gen-go="$BIN/protoc-gen-go" \
	--plugin=protoc-gen-go-grpc="$BIN/protoc-gen-go-grpc" \
	--go_out=. --go_opt=module=$MODULE \
	--go-grpc_out=. --go-grpc_opt=module=$MODULE \
	$protos
say "generated $(ls sparkconnect/pb/*.pb.go | wc -l) files in sparkconnect/pb"

if [ "${1:-}" = check ]; then
	desc="$CACHE/thund.pb"
	# shellcheck disable=SC2086
	"$VENV/bin/python" -m grpc_tools.protoc -Iproto --include_imports --include_source_info --descriptor_set_out="$desc" $protos
	failed=0
	for v in $("$ROOT/scripts/spark.sh" versions); do
		spark_python=$("$ROOT/scripts/spark.sh" python "$v")
		"$spark_python" "$ROOT/scripts/protocheck.py" "$desc" || failed=1
	done
	exit $failed
fi
