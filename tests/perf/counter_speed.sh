#!/usr/bin/env bash
# The counter's speed as the app measures it (PAYDESK_PERF): 20 sales on the built-in sandbox
# under Xvfb at 1024×768, each typed as a clerk does (an amount, Ctrl+Enter) with xdotool, then
# "New link" on the result view for the next one. For every sale the app logs one line:
#   paydesk-perf: ctrl_enter_to_qr frames=F ms=M answer_to_qr frames=F ms=M
# from the frame that received Ctrl+Enter, and from the frame the server's answer arrived in,
# to the first frame that paints the link's QR. Prints each series' median and max, in
# frames and ms. The goal: the QR paints within 2 frames of the answer.
# Usage: tests/perf/counter_speed.sh [sales]   (default 20)
source "$(dirname "$0")/common.sh"
SALES="${1:-20}"
XVFB_SCREEN=1024x768x24 start_xvfb
PAYDESK_LANG=en_US.UTF-8 start_app
wid=$(wait_window)
xdotool windowsize --sync "$wid" 1024 768 || true
xdotool windowmove --sync "$wid" 0 0 || true
sleep 3
xdotool windowfocus --sync "$wid" || true
# Where "New link" sits on the result view's header (at 1024×768, English).
NEW_X="${NEW_X:-972}" NEW_Y="${NEW_Y:-56}"
# The amount field of New link (it has the first focus; a click gives it back).
AMOUNT_X="${AMOUNT_X:-260}" AMOUNT_Y="${AMOUNT_Y:-140}"
lines() { grep -c "paydesk-perf:" "$WORK/app.log" || true; }
for i in $(seq "$SALES"); do
  before=$(lines)
  xdotool mousemove "$AMOUNT_X" "$AMOUNT_Y" click 1
  sleep 0.2
  xdotool type --delay 20 "1${i}.50"
  sleep 0.2
  xdotool key ctrl+Return
  for _ in $(seq 400); do [[ "$(lines)" -gt "$before" ]] && break; sleep 0.025; done
  if [[ "$(lines)" -le "$before" ]]; then
    echo "sale $i: no QR was logged; app log:" >&2; tail -n 20 "$WORK/app.log" >&2; exit 1
  fi
  sleep 0.5
  xdotool mousemove "$NEW_X" "$NEW_Y" click 1
  sleep 0.8
done
grep "paydesk-perf:" "$WORK/app.log" | python3 -c '
import re, statistics, sys
rows = [re.findall(r"(\w+) frames=(\d+) ms=([\d.]+)", line) for line in sys.stdin]
for i, name in enumerate(["ctrl_enter_to_qr", "answer_to_qr"]):
    frames = [int(r[i][1]) for r in rows]
    ms = [float(r[i][2]) for r in rows]
    print(f"{name}: {len(rows)} sales; frames median {statistics.median(frames)} max {max(frames)}; "
          f"ms median {statistics.median(ms):.1f} max {max(ms):.1f}")
'
