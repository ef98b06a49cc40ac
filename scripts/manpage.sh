#!/bin/sh
# Writes the trak(1) man page on stdout from the command's own help texts: `trak --help` for
# the overview and `trak <command> --help` for each command it lists, so the page says exactly
# what the installed command does. The build runs it (cmake/install.cmake).
#   usage: manpage.sh PATH/TO/trak VERSION > trak.1
set -eu
trak=$1
version=$2

# Help text as literal roff: backslashes escaped, a leading . or ' defused.
literal() {
  echo '.nf'
  sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
  echo '.fi'
}

overview=$("$trak" --help)
commands=$(printf '%s\n' "$overview" | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
[ -n "$commands" ] || { echo "manpage.sh: no commands in '$trak --help'" >&2; exit 1; }

cat <<HEAD
.TH TRAK 1 "" "trak $version" "User Commands"
.SH NAME
trak \- convert, check, query and record traces in Perfetto's trace format
.SH SYNOPSIS
.B trak
.I command
[\fIoptions\fR] [\fIargs\fR]
.SH DESCRIPTION
HEAD
printf '%s\n' "$overview" | literal
echo '.SH COMMANDS'
for cmd in $commands; do
  echo ".SS $cmd"
  "$trak" "$cmd" --help | literal
done
cat <<'TAIL'
.SH SEE ALSO
The guides in trak's docs/ directory: processor.md, sdk.md, formats.md, system-tracing.md.
TAIL
