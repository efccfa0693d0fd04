#!/usr/bin/env bash
# Start-up to first frame under Xvfb, on a fresh data folder (first start: the built-in
# sandbox starts in-process). Prints the app's own measure (process start to the end of the
# first frame, logged when PAYDESK_PERF is set) and the wall time until the window exists.
# Usage: tests/perf/startup.sh [runs]   (default 5)
source "$(dirname "$0")/common.sh"
RUNS="${1:-5}"
start_xvfb
for i in $(seq "$RUNS"); do
  t0=$(date +%s%N)
  start_app
  wait_window >/dev/null
  t1=$(date +%s%N)
  for _ in $(seq 400); do grep -q "first frame" "$WORK/app.log" && break; sleep 0.025; done
  inapp=$(grep -o "first frame after [0-9.]* ms" "$WORK/app.log" | grep -o "[0-9.]*" | head -n1)
  echo "run $i: window after $(( (t1 - t0) / 1000000 )) ms; first frame after ${inapp:-?} ms (in-app)"
  kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=""
  rm -rf "$WORK/paydesk" "$WORK/data" "$WORK/config" "$WORK/home"
done
