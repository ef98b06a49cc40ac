# Sourced by the tests/cli scripts that check `trak check` output: a temp dir $WORK removed at
# exit, `encode` (a Trace in text format on stdin to binary on stdout, by protoc), and
# `expect_lines FILE WANT...` (each WANT a fixed string FILE must contain; otherwise a FAIL line
# and fail=1).
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
encode() { "$PROTOC" --encode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" trace.proto; }
expect_lines() {
  local file=$1 want
  shift
  for want in "$@"; do
    grep -qF -- "$want" "$file" || { echo "FAIL: check output lacks: $want"; fail=1; }
  done
}
