#!/usr/bin/env bash
# Render an HTML report in headless Chromium: a PNG screenshot and the DOM after scripts ran.
#   scripts/screenshot_report.sh REPORT.html [OUT_PREFIX] [QUERY]
# QUERY is appended to the file URL, e.g. "?open=1" (expand every case) or "?outcome=regressed".
# Needs chromium (Debian: apt-get install chromium). No network: the report is self-contained,
# and --disable-background-networking keeps Chromium itself quiet.
set -euo pipefail
report="$(realpath "$1")"
out="${2:-report}"
query="${3:-}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome)"
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking --hide-scrollbars --window-size=1280,1400)
"$browser" "${flags[@]}" --screenshot="$out.png" "file://$report$query" 2>/dev/null
"$browser" "${flags[@]}" --dump-dom "file://$report$query" 2>/dev/null > "$out.dom.html"
echo "wrote $out.png and $out.dom.html"
