#!/usr/bin/env bash
# Renders a PR comment (markdown) to docs/img/comment.png for the README, with a regression made on
# purpose: a copy of the offline example whose agent sets the thermostat one degree too high.
# Needs: chromium (apt-get install chromium) and python-markdown (pip install markdown). Not a test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/home_automation" "$work/demo"
sed -i 's/temperature=int(match\[1\]))/temperature=int(match[1]) + 1)/' "$work/demo/agent.py"
(cd "$work/demo" && agenteval run --config agenteval.yaml --md comment.md >/dev/null 2>&1 || true)
python - "$work/demo/comment.md" "$work/comment.html" <<'PY'
import sys, markdown
body = markdown.markdown(open(sys.argv[1]).read(), extensions=["tables", "fenced_code"])
style = """body{font:14px -apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:860px;margin:24px;color:#1f2328}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d7de;padding:4px 10px}
blockquote{border-left:4px solid #d1242f;margin:0;padding:4px 12px;color:#1f2328;background:#fff5f5}
pre{background:#f6f8fa;padding:10px;border-radius:6px}code{font-size:12px}h4{margin:18px 0 4px}"""
open(sys.argv[2], "w").write(f"<html><head><meta charset='utf-8'><style>{style}</style></head><body>{body}</body></html>")
PY
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --window-size=900,1000 \
  --screenshot="$root/docs/img/comment.png" "file://$work/comment.html" 2>/dev/null
echo "wrote docs/img/comment.png"
