#!/usr/bin/env bash
# Screenshots for the README, under Xvfb: the first start (New link on the sandbox profile)
# and the result view of a link with its QR, made by typing an amount and Ctrl+Enter.
# Needs imagemagick's `import`. Writes assets/screenshots/{first-start,link-result}.png.
source "$(dirname "$0")/common.sh"
command -v import >/dev/null || { echo "missing import (imagemagick)" >&2; exit 2; }
OUT="$ROOT/assets/screenshots"
mkdir -p "$OUT"
export PAYDESK_LANG="${PAYDESK_LANG:-en_US.UTF-8}"
start_xvfb
start_app
wid=$(wait_window)
xdotool windowsize --sync "$wid" 1280 860 || true
xdotool windowmove --sync "$wid" 0 0 || true
for _ in $(seq 200); do grep -q "first frame" "$WORK/app.log" && break; sleep 0.05; done
sleep 2
import -window root "$OUT/first-start.png"
# The amount field has the first focus; with no window manager, focus the window first.
xdotool windowfocus --sync "$wid"
xdotool type --delay 60 "150"
sleep 0.5
xdotool key ctrl+Return
sleep 3
import -window root "$OUT/link-result.png"
echo "wrote $OUT/first-start.png and $OUT/link-result.png"
