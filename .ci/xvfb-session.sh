# Sourced by the tests that drive the app under Xvfb (.ci/clipboard-test.sh,
# .ci/file-dialog-test.sh), after .ci/private-home.sh (which sets `tmp`). Gives them:
# - `bin`: the app, as .ci/test hands it over in PAYDESK_BIN (built by `cargo test`), or
#   built here when the test runs alone;
# - an Xvfb of 1024x768 on the first free display number from 90 (DISPLAY set), stopped on
#   exit after whatever the test adds to `pids` (in reverse order: the app before the display
#   it draws on), and `tmp` removed;
# - `wait_for WHAT CMD…`: runs CMD every 50 ms until it succeeds, else calls the test's own
#   `fail` with "timed out waiting until WHAT" after 400 tries (the test waits for
#   "Xvfb runs" itself, once its `fail` is defined).
bin="${PAYDESK_BIN:-}"
if [ -z "$bin" ]; then
    cargo build --bin paydesk
    bin="$PWD/target/debug/paydesk"
fi

n=90; while [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1024x768x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids=("$!")
stop() {
    local i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap stop EXIT
export DISPLAY=":$n"

wait_for() {
    local what=$1; shift
    for _ in $(seq 400); do "$@" && return 0; sleep 0.05; done
    fail "timed out waiting until $what"
}

