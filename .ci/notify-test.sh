#!/usr/bin/env bash
# Runs tests/core/desktop/notify.rs against a real notification daemon: dunst under Xvfb on a
# private D-Bus session, with a throw-away HOME and a 0700 XDG_RUNTIME_DIR, so the machine's
# own desktop and notifications are never touched. Then the same notifier with no session bus
# at all, and on a bus with no notification service (no activation files): an error, no hang.
# Installs nothing: .ci/run installs the apt packages dunst, dbus-x11 and xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in dbus-run-session dbus-daemon dbus-monitor dbus-send Xvfb dunst dunstctl cargo; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "notify-test: '$tool' not found (apt-get install dunst dbus-x11 xvfb)" >&2
        exit 2
    fi
done

# shellcheck source=private-home.sh
source .ci/private-home.sh
export TMP_DIR="$tmp"

# Build first, outside the session, so the daemons only live while the tests run.
cargo test --test core --no-run

dbus-run-session -- bash -c '
    set -euo pipefail
    # A free display number: the first without a lock file.
    n=90; while [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
    Xvfb ":$n" -screen 0 1024x768x24 -nolisten tcp >"$TMP_DIR/xvfb.log" 2>&1 &
    xvfb=$!
    export DISPLAY=":$n"
    for _ in $(seq 100); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.05; done
    dunst >"$TMP_DIR/dunst.log" 2>&1 &
    dunst=$!
    trap "kill $dunst $xvfb 2>/dev/null || true" EXIT
    # Wait until dunst owns the name (asking the bus only: a call to the name itself would
    # have the bus start a second dunst from its activation file, without a display).
    for _ in $(seq 200); do
        dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null \
            | grep -q true && break
        sleep 0.05
    done
    cargo test --test core -- --ignored --exact \
        desktop::notify::a_paid_alert_reaches_the_notification_daemon_with_its_amount_order_and_sound
'

# No session bus at all.
DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/no-bus" cargo test --test core -- \
    --ignored --exact desktop::notify::without_a_notification_service_the_notifier_says_so_and_does_not_hang

# A session bus that starts no service on demand (no activation files) and has none running.
cat >"$tmp/bare.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$tmp/runtime</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
dbus-run-session --config-file="$tmp/bare.conf" -- cargo test --test core -- \
    --ignored --exact desktop::notify::without_a_notification_service_the_notifier_says_so_and_does_not_hang
