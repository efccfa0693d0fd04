#!/usr/bin/env bash
# Idle CPU of the app under Xvfb: start it, let it settle, then measure the CPU time it uses
# over a window of seconds with nothing happening. An idle egui app should request no repaint.
# Usage: tests/perf/idle_cpu.sh [seconds]   (default 20)
source "$(dirname "$0")/common.sh"
SECS="${1:-20}"
start_xvfb
start_app
wait_window >/dev/null
sleep 5
hz=$(getconf CLK_TCK)
a=$(cpu_ticks "$APP_PID")
sleep "$SECS"
b=$(cpu_ticks "$APP_PID")
awk -v a="$a" -v b="$b" -v hz="$hz" -v s="$SECS" 'BEGIN {
  cpu = (b - a) / hz;
  printf "idle: %.3f s CPU over %d s = %.2f %% of one core\n", cpu, s, 100 * cpu / s }'
