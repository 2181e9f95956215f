#!/usr/bin/env bash
# Runs a Windows program built by the `windows` preset under Wine (Debian wine64, whose loader
# is /usr/lib/wine/wine64): a throwaway Wine prefix per build tree (made on first use, about
# 15 s), Wine's own diagnostics off. Exits with the program's status.
set -euo pipefail
loader=/usr/lib/wine/wine64
[ -x "$loader" ] || loader=$(command -v wine64 || command -v wine || true)
if [ -z "$loader" ]; then
    echo "run-under-wine: no Wine (Debian wine64) installed" >&2
    exit 127
fi
export WINEDEBUG=-all
# Arguments and file names pass from Unix to Windows in the locale's encoding: UTF-8, so
# that names outside ASCII reach the program whole.
export LC_ALL=C.UTF-8
export WINEPREFIX=${FASTREAD_WINEPREFIX:-${TMPDIR:-/tmp}/fastread-wine-$(id -u)}
export WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono or Gecko installer dialogs
if [ ! -d "$WINEPREFIX" ]; then
    # Made once, quietly (its messages are about Wine's own setup, not the program).
    "$loader" wineboot --init >/dev/null 2>&1 || true
fi
exec "$loader" "$@"
