#!/usr/bin/env bash
# Runs tests/core/desktop/keyring.rs against a real Secret Service: gnome-keyring on a
# private D-Bus session, with a throw-away HOME and a 0700 XDG_RUNTIME_DIR, so the machine's
# own keyring is never touched. Installs nothing: .ci/run installs the apt packages
# gnome-keyring, dbus-x11 and libsecret-tools.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in dbus-run-session gnome-keyring-daemon secret-tool cargo; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "keyring-test: '$tool' not found (apt-get install gnome-keyring dbus-x11 libsecret-tools)" >&2
        exit 2
    fi
done

# shellcheck source=private-home.sh
source .ci/private-home.sh
PASS="paydesk-ci-$RANDOM$RANDOM"
export PASS

dbus-run-session -- bash -c '
    set -euo pipefail
    printf %s "$PASS" | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
    cargo test --test core -- --ignored desktop::keyring::
'
