#!/usr/bin/env bash
# Two of docs/benchmarks.md's limits, measured on the debug binary (what `cargo test` builds):
# - a catalog file at the 16 MiB limit imported through the CLI (its time and peak memory),
#   and `/dev/zero` refused (it never ends: the limit stops the read);
# - the sandbox's resident memory under 8 rounds of 60 unsigned requests of 1.9 MB each, one
#   at a time, then 60 at once (refused before any signature work, the bodies never kept).
# Usage: tests/perf/limits.sh   (needs curl and GNU time's /usr/bin/time)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${PAYDESK_BIN:-$ROOT/target/debug/paydesk}"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --bin paydesk)
WORK="$(mktemp -d)"
trap 'kill "${SANDBOX_PID:-}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# A catalog of 16 MiB less a line: ids, Turkish names, prices, two currencies.
python3 - "$WORK/catalog.csv" <<'EOF'
import sys
limit = 16 * 1024 * 1024
with open(sys.argv[1], "w", encoding="utf-8") as f:
    header = "id,name,unit_price,currency\n"
    f.write(header)
    size = len(header.encode())
    i = 0
    while True:
        line = f"v{i:07d},Çay bardağı ince belli {i % 97},{(i % 5000) / 100 + 1:.2f},{'TRY' if i % 3 else 'EUR'}\n"
        n = len(line.encode())
        if size + n > limit:
            break
        f.write(line)
        size += n
        i += 1
    print(f"catalog: {i + 1} lines, {size} bytes")
EOF
/usr/bin/time -f "catalog import at the limit: %e s, %M kB peak" \
  "$BIN" --data-dir "$WORK/data" catalog import "$WORK/catalog.csv" >/dev/null
/usr/bin/time -o "$WORK/zero.time" -f "/dev/zero refused: %e s, %M kB peak" \
  "$BIN" --data-dir "$WORK/data" catalog import /dev/zero >/dev/null 2>&1 || true
cat "$WORK/zero.time"

# The sandbox under large unsigned bodies.
PORT=$((20000 + RANDOM % 20000))
"$BIN" sandbox --data-dir "$WORK/sb" --addr "127.0.0.1:$PORT" >"$WORK/sandbox.log" 2>&1 &
SANDBOX_PID=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done
head -c $((1900 * 1024)) /dev/zero | tr '\0' 'a' | sed 's/^/{"x":"/; s/$/"}/' >"$WORK/big.json"
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$SANDBOX_PID/status"; }
post() {
  curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
    --data-binary @"$WORK/big.json" "http://127.0.0.1:$PORT/partner/1.0/payment/link/create"
}
line="sandbox RSS, one request at a time: start $(rss) MB"
for round in $(seq 8); do
  for _ in $(seq 60); do post; done
  line="$line, $round: $(rss)"
done
echo "$line MB"
pids=()
for _ in $(seq 60); do post & pids+=($!); done
wait "${pids[@]}"
echo "sandbox RSS after 60 requests at once: $(rss) MB"
echo "sandbox log: $(grep -c 'INFO' "$WORK/sandbox.log") request lines, $(grep -cE 'WARN|ERROR' "$WORK/sandbox.log" || true) warnings or errors"
