#!/usr/bin/env bash
# The desktop's file dialog, driven for real: the app runs under Xvfb on a fresh data folder
# (the built-in sandbox profile) with no session bus, so no portal answers and rfd runs
# zenity. xdotool presses History's "Export CSV", types another file name into zenity's save
# dialog and presses Enter: the CSV must appear there, not in the usual folder. Then the
# catalog's "Choose file…" opens zenity's file chooser, a catalog CSV's path is typed into it
# (Ctrl+L), and after Import the local catalog holds its item.
#
# Steps wait on windows and files, never for a fixed time. Installs nothing: needs the apt
# packages xvfb, xdotool and zenity (python3 as for .ci/package.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in Xvfb xdotool zenity python3 cargo; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "file-dialog-test: '$tool' not found (apt-get install xvfb xdotool zenity python3)" >&2
        exit 2
    fi
done

# shellcheck source=private-home.sh
source .ci/private-home.sh
# No session bus: the portal cannot answer, zenity is the dialog. (GTK's accessibility bridge
# would wait for a bus that is not there before zenity shows its window.)
unset DBUS_SESSION_BUS_ADDRESS
export NO_AT_BRIDGE=1 GTK_A11Y=none

# shellcheck source=xvfb-session.sh
source .ci/xvfb-session.sh

fail() {
    echo "file-dialog-test: $*" >&2
    echo "--- app log:" >&2; cat "$tmp/app.log" >&2 || true
    if command -v import >/dev/null 2>&1 && import -window root "$tmp/screen.png" 2>/dev/null; then
        mkdir -p target && cp "$tmp/screen.png" target/file-dialog-test-screen.png
        echo "(screen: kept in target/file-dialog-test-screen.png)" >&2
    fi
    exit 1
}

wait_for "Xvfb runs" test -e "/tmp/.X11-unix/X$n"
LANG=en_US.UTF-8 LC_ALL= PAYDESK_PERF=1 PAYDESK_LOG=info "$bin" --data-dir "$tmp/data" \
    >"$tmp/app.out" 2>"$tmp/app.log" &
app=$!
pids+=("$app")
wait_for "the first frame is drawn" grep -q 'first frame' "$tmp/app.log"
window_id() { xdotool search --pid "$app" --name paydesk 2>/dev/null | head -n1; }
has_window() { [ -n "$(window_id)" ]; }
wait_for "the window is mapped" has_window
wid="$(window_id)"
xdotool windowsize --sync "$wid" 1024 768 || true
xdotool windowmove --sync "$wid" 0 0 || true
focus() { xdotool windowfocus --sync "$wid" 2>/dev/null; }
wait_for "the window takes the focus" focus

# Where things are at 1024×768: the navigation's History and Catalog entries (in the Back
# office group), and the buttons at the right of History's header and in the row under the
# catalog's "CSV file" label.
nav() { xdotool mousemove 60 "$1" click 1; }
NAV_HISTORY=155 NAV_CATALOG=271
EXPORT_AT="963 52" CHOOSE_AT="600 129" IMPORT_AT="779 129"

zenity_window() { xdotool search --onlyvisible --class zenity 2>/dev/null | head -n1; }
has_zenity() { [ -n "$(zenity_window)" ]; }
no_zenity() { [ -z "$(zenity_window)" ]; }
# Types into zenity's window once it is there and has the focus.
in_zenity() {
    local z
    z="$(zenity_window)"
    wait_for "zenity takes the focus" xdotool windowfocus --sync "$z"
    xdotool "$@"
}

# Opens the view of the navigation entry at height `entry` and clicks at `at` until a zenity window shows
# (the window may take a moment to take clicks, the view a frame or two to be drawn).
click_until_zenity() {
    local entry=$1 at=$2
    for _ in $(seq 20); do
        nav "$entry"
        sleep 0.2
        # shellcheck disable=SC2086
        xdotool mousemove $at click 1
        for _ in $(seq 60); do has_zenity && return 0; sleep 0.05; done
    done
    fail "no zenity window after clicking at $at"
}

# History's export through the dialog: another name than the one offered.
click_until_zenity "$NAV_HISTORY" "$EXPORT_AT"
chosen="$tmp/chosen-by-the-clerk.csv"
in_zenity key ctrl+a
xdotool type --delay 20 "$chosen"
xdotool key Return
wait_for "the export is written where the dialog said" test -s "$chosen"
head -n1 "$chosen" | grep -q '^id,' || fail "the chosen file is not the export: $(head -c 200 "$chosen")"
if ls "$HOME"/Downloads/paydesk-history-*.csv "$HOME"/paydesk-history-*.csv >/dev/null 2>&1; then
    fail "an export went to the usual folder too"
fi
wait_for "the dialog closed" no_zenity

# The catalog's file through the dialog, then Import.
csv="$tmp/catalog.csv"
printf 'id,name,unit_price,currency\nvar_dialog_test,Dialog test item,12.50,TRY\n' >"$csv"
focus
click_until_zenity "$NAV_CATALOG" "$CHOOSE_AT"
in_zenity key ctrl+l
xdotool type --delay 20 "$csv"
# The first Return may only close the location's completion list.
enter_until_closed() { xdotool key Return; sleep 0.3; no_zenity; }
wait_for "the dialog closed" enter_until_closed
imported() {
    python3 - "$tmp/data/paydesk.sqlite3" <<'PY'
import sqlite3, sys
try:
    rows = sqlite3.connect(sys.argv[1]).execute(
        "SELECT 1 FROM catalog_variants WHERE id = 'var_dialog_test'").fetchall()
except sqlite3.Error:
    rows = []
sys.exit(0 if rows else 1)
PY
}
# The chosen file is previewed at once (its path then fills the field, so Import sits at a
# fixed place); a click on Import while it is still disabled does nothing, so click until
# the item is in the store.
focus
press_import() { xdotool mousemove $IMPORT_AT click 1; sleep 0.1; imported; }
wait_for "the catalog holds the chosen file's item" press_import

echo "file-dialog-test: the export and the catalog import went through the desktop's file dialog (zenity)"
