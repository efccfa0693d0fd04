#!/usr/bin/env bash
# Shared by the Xvfb scripts: a virtual display, a fresh data folder, the release binary.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${PAYDESK_BIN:-$ROOT/target/release/paydesk}"
DISPLAY_NUM="${PAYDESK_XVFB_DISPLAY:-:97}"

need() { command -v "$1" >/dev/null || { echo "missing $1 (apt install xvfb xdotool imagemagick)" >&2; exit 2; }; }
need Xvfb; need xdotool

if [[ ! -x "$BIN" ]]; then
  echo "building $BIN" >&2
  (cd "$ROOT" && cargo build --release --bin paydesk)
fi

WORK="$(mktemp -d)"
XVFB_PID=""
APP_PID=""
cleanup() {
  [[ -n "$APP_PID" ]] && kill "$APP_PID" 2>/dev/null || true
  [[ -n "$XVFB_PID" ]] && kill "$XVFB_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts Xvfb on $DISPLAY_NUM and waits until it answers; tries three times (a display still
# being torn down by an earlier run, or a stale lock file, makes the first try fail).
start_xvfb() {
  export DISPLAY="$DISPLAY_NUM"
  for try in 1 2 3; do
    Xvfb "$DISPLAY_NUM" -screen 0 "${XVFB_SCREEN:-1280x860x24}" -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
    XVFB_PID=$!
    for _ in $(seq 100); do
      if xdpyinfo >/dev/null 2>&1 && kill -0 "$XVFB_PID" 2>/dev/null; then return 0; fi
      sleep 0.05
    done
    echo "Xvfb did not answer (try $try): $(tail -n 2 "$WORK/xvfb.log")" >&2
    stop_xvfb
    sleep 1
  done
  echo "Xvfb did not start" >&2; exit 1
}

# Stops the Xvfb this script started, and its lock file if it left one.
stop_xvfb() {
  [[ -n "$XVFB_PID" ]] && { kill "$XVFB_PID" 2>/dev/null || true; wait "$XVFB_PID" 2>/dev/null || true; }
  XVFB_PID=""
  local n="${DISPLAY_NUM#:}"
  if [[ -e "/tmp/.X$n-lock" ]] && ! kill -0 "$(tr -d ' ' <"/tmp/.X$n-lock" 2>/dev/null)" 2>/dev/null; then
    rm -f "/tmp/.X$n-lock" "/tmp/.X11-unix/X$n"
  fi
}

# Starts the app on a fresh data folder (first start: the sandbox profile, New link).
# Sets APP_PID; the app's stderr goes to $WORK/app.log.
start_app() {
  export HOME="$WORK/home"; mkdir -p "$HOME"
  export XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config"
  export LANG="${PAYDESK_LANG:-tr_TR.UTF-8}" LC_ALL=
  PAYDESK_PERF=1 PAYDESK_DATA_DIR="$WORK/paydesk" "$BIN" >"$WORK/app.out" 2>"$WORK/app.log" &
  APP_PID=$!
}

# Waits for the app's window; prints its id.
wait_window() {
  local wid=""
  for _ in $(seq 400); do
    wid="$(xdotool search --pid "$APP_PID" --name paydesk 2>/dev/null | head -n1 || true)"
    [[ -n "$wid" ]] && { echo "$wid"; return 0; }
    sleep 0.025
  done
  echo "no window; app log:" >&2; cat "$WORK/app.log" >&2; exit 1
}

# CPU ticks (user + system) used so far by a pid.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# A shop to photograph: a sandbox of its own on $PORT, a `kadikoy` profile pointing at it in
# the data folder $DATA, and three catalog items (one with a barcode). Defines `cli` (paydesk
# on $DATA), `mk` (create a link, print its id) and `pay ID BODY` (pay through the sandbox's
# admin route, then refresh the link in history). Sets SANDBOX_PID; stops it on exit.
seed_shop() {
  "$BIN" sandbox --addr "127.0.0.1:$PORT" --seed 3 >"$WORK/sandbox.log" 2>&1 &
  SANDBOX_PID=$!
  trap 'kill $SANDBOX_PID 2>/dev/null || true; cleanup' EXIT
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/sandbox" >/dev/null && break; sleep 0.05; done
  cli profile add kadikoy --base-url "http://127.0.0.1:$PORT" --api-key pk_test_paydesk_demo \
    --order-prefix KDK >/dev/null
  printf 'id;name;unit_price;currency;barcode\nvar_simit;Susamlı Simit;25,00;TRY;8690000000012\nvar_turk_kahvesi;Türk Kahvesi;85,00;TRY;\nvar_san_sebastian;San Sebastian Cheesecake;190,00;TRY;\n' \
    >"$WORK/katalog.csv"
  cli catalog import "$WORK/katalog.csv" >/dev/null
}
cli() { "$BIN" --data-dir "$DATA" "$@"; }
mk() { cli --profile kadikoy link create --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
pay() {
  curl -sf -X POST "http://127.0.0.1:$PORT/sandbox/links/$1/pay" -H 'content-type: application/json' -d "$2" >/dev/null
  cli --profile kadikoy link show "$1" --refresh >/dev/null
}
