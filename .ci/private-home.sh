# Sourced by the tests that start desktop services of their own (.ci/keyring-test.sh,
# .ci/notify-test.sh): a throw-away HOME and a 0700 XDG_RUNTIME_DIR, so the machine's own
# keyring, desktop and notifications are never touched; the toolchain and the crate registry
# stay where they are. Sets `tmp` (removed on exit).
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -m 0700 "$tmp/home" "$tmp/runtime"
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export HOME="$tmp/home"
export XDG_RUNTIME_DIR="$tmp/runtime"
export XDG_DATA_HOME="$tmp/home/.local/share"
export XDG_CONFIG_HOME="$tmp/home/.config"
