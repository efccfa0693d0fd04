#!/usr/bin/env bash
# Memory of paydesk against its floor, under Xvfb with Mesa's software OpenGL (llvmpipe):
# RSS and PSS (/proc/PID/smaps_rollup) of an empty eframe window with paydesk's eframe
# features (tests/perf/tiny_window.rs, the `tiny_window` example), then of paydesk
# - after start-up on a fresh data folder (first start: the built-in sandbox),
# - after 100 links created through the CLI on that folder's sandbox profile, at start-up
#   (the board lists them) and after opening History,
# - after opening History on a 1,000,000-link history: the file
#   `cargo bench --bench benches -- store_history` builds (profile `bench`), copied into a data
#   folder of its own, with a
#   `bench` profile added through the CLI.
# Each figure is read a few seconds after the window's first frame (or the click), so start-up
# work has settled. Builds both in release first.
# Usage: tests/perf/memory.sh [history file]  (default: the newest
#   target/tmp/store_history_1000000_*/paydesk.sqlite3; the 1M step is skipped without one)
PAYDESK_XVFB_DISPLAY="${PAYDESK_XVFB_DISPLAY:-:70}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
(cd "$ROOT" && cargo build --release --bin paydesk --example tiny_window)
source "$(dirname "$0")/common.sh"
TINY="$ROOT/target/release/examples/tiny_window"
BIG="${1:-$(ls -t "$ROOT"/target/tmp/store_history_1000000_*/paydesk.sqlite3 2>/dev/null | head -n1 || true)}"
SETTLE="${PAYDESK_MEMORY_SETTLE:-3}"
export LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config"
export LANG=en_US.UTF-8 LC_ALL=
mkdir -p "$HOME"

# label pid: prints RSS, PSS (smaps_rollup) and the peak RSS (VmHWM) in MB.
report() {
  awk -v label="$1" '
    FILENAME ~ /smaps_rollup/ && /^Rss:/ { rss = $2 }
    FILENAME ~ /smaps_rollup/ && /^Pss:/ { pss = $2 }
    FILENAME ~ /status/ && /^VmHWM:/ { hwm = $2 }
    END { printf "%-52s RSS %6.1f MB   PSS %6.1f MB   peak RSS %6.1f MB\n", label, rss/1024, pss/1024, hwm/1024 }
  ' "/proc/$2/smaps_rollup" "/proc/$2/status"
}

# Waits for "first frame" in a log, then $SETTLE seconds.
settle() {
  for _ in $(seq 800); do grep -q "first frame" "$1" && break; sleep 0.025; done
  grep -q "first frame" "$1" || { echo "no first frame; log:" >&2; cat "$1" >&2; exit 1; }
  sleep "$SETTLE"
}

stop_app() { kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=""; }

# Starts paydesk on data folder $1 (more arguments passed on); sets APP_PID; prints the
# window id once it has drawn and settled, at 1280×860 in the corner (as the screenshots).
run_paydesk() {
  local data="$1"; shift
  kill -0 "$XVFB_PID" 2>/dev/null || { echo "Xvfb is gone:" >&2; cat "$WORK/xvfb.log" >&2; exit 1; }
  PAYDESK_PERF=1 "$BIN" --data-dir "$data" "$@" >"$WORK/app.out" 2>"$WORK/app.log" &
  APP_PID=$!
  local wid; wid="$(wait_window)"
  xdotool windowsize --sync "$wid" 1280 860 >/dev/null 2>&1 || true
  xdotool windowmove --sync "$wid" 0 0 >/dev/null 2>&1 || true
  settle "$WORK/app.log"
}

# History is the fifth entry of the navigation (New link, Open links, Save card, Installments,
# History), at 1280×860; the screenshots below show where the click landed.
# With PAYDESK_MEMORY_SHOTS=DIR, a screenshot of each History view goes there (to check the
# click landed; needs imagemagick's `import`).
open_history() {
  xdotool mousemove 37 161 click 1; sleep "$SETTLE"
  if [[ -n "${PAYDESK_MEMORY_SHOTS:-}" ]]; then
    mkdir -p "$PAYDESK_MEMORY_SHOTS"
    import -window root -crop 1280x860+0+0 "$PAYDESK_MEMORY_SHOTS/history-$1.png"
  fi
}

start_xvfb
# A display already in use (another Xvfb) would take our windows and disappear under us.
sleep 0.2
kill -0 "$XVFB_PID" 2>/dev/null || { echo "Xvfb $DISPLAY_NUM did not start:" >&2; cat "$WORK/xvfb.log" >&2; exit 1; }
echo "display $DISPLAY_NUM, $(nproc) cores, $(uptime | sed 's/.*load/load/')"
glxinfo -B 2>/dev/null | grep -m1 "OpenGL renderer" || true

PAYDESK_PERF=1 "$TINY" >"$WORK/tiny.out" 2>"$WORK/tiny.log" &
APP_PID=$!
for _ in $(seq 400); do
  wid="$(xdotool search --pid "$APP_PID" --name "tiny window" 2>/dev/null | head -n1 || true)"
  [[ -n "$wid" ]] && break; sleep 0.025
done
[[ -n "$wid" ]] || { echo "no tiny window; log:" >&2; cat "$WORK/tiny.log" >&2; exit 1; }
# The same size as paydesk's below (the framebuffers are part of both).
xdotool windowsize --sync "$wid" 1280 860 >/dev/null 2>&1 || true
xdotool windowmove --sync "$wid" 0 0 >/dev/null 2>&1 || true
settle "$WORK/tiny.log"
report "tiny eframe window (the floor)" "$APP_PID"
stop_app

run_paydesk "$WORK/paydesk"
report "paydesk after start-up (fresh folder)" "$APP_PID"
stop_app

for i in $(seq 100); do
  "$BIN" --data-dir "$WORK/paydesk" link create --amount "1$i.50" --description "memory $i" \
    >/dev/null
done
run_paydesk "$WORK/paydesk"
report "paydesk after start-up with 100 links" "$APP_PID"
open_history 100
report "paydesk, 100 links, History open" "$APP_PID"
stop_app

if [[ -n "$BIG" && -f "$BIG" ]]; then
  mkdir -p "$WORK/big"
  cp "$BIG" "$WORK/big/paydesk.sqlite3"
  [[ -f "$BIG-wal" ]] && cp "$BIG-wal" "$WORK/big/paydesk.sqlite3-wal"
  "$BIN" --data-dir "$WORK/big" profile add bench --base-url http://127.0.0.1:9 \
    --api-key pk_test_memory >/dev/null
  PAYDESK_API_SECRET=sk_test_memory run_paydesk "$WORK/big" --profile bench
  report "paydesk, 1,000,000 links, after start-up" "$APP_PID"
  open_history 1m
  report "paydesk, 1,000,000 links, History open" "$APP_PID"
  stop_app
else
  echo "no 1,000,000-link history file (run cargo bench --bench benches -- store_history first)"
fi
