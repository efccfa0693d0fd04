#!/usr/bin/env bash
# The Debian package end to end (issue 6): build it as the README's install section does
# (`--no-build`: .ci/run has built it already), show and check its contents, install it with
# dpkg, run the installed binary (version, man page, desktop files, a CLI round trip against
# `paydesk sandbox`, the window started from the menu entry under Xvfb), then remove it and
# check that nothing of it is left. Needs root (CI runs as root) and desktop-file-utils,
# appstream, curl, xvfb, xdotool.
set -euo pipefail
cd "$(dirname "$0")/.."

APP_ID=io.github.paydesk.Paydesk
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"

if [ "${1:-}" != --no-build ]; then   # .ci/run builds it in the background first
  echo "== build the package"
  bash packaging/linux/build-deb.sh
fi
deb="target/debian/paydesk_${version}-1_$(dpkg --print-architecture).deb"
test -f "$deb"
dpkg-deb --info "$deb"
dpkg-deb --contents "$deb"
printf 'sizes: binary %s bytes, package %s bytes\n' \
  "$(stat -c %s target/release/paydesk)" "$(stat -c %s "$deb")"

work="$(mktemp -d)"
sandbox_pid=""
gui_pid=""
xvfb_pid=""
cleanup() {
  for pid in "$sandbox_pid" "$gui_pid" "$xvfb_pid"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  dpkg -s paydesk >/dev/null 2>&1 && dpkg -r paydesk >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== install with dpkg -i"
# What the package depends on comes from Debian first (apt resolves the same list when a user
# runs `apt install ./paydesk_*.deb`), so that dpkg -i itself must succeed.
apt-get satisfy -y -q --no-install-recommends "$(dpkg-deb -f "$deb" Depends)"
dpkg -i "$deb"
test "$(command -v paydesk)" = /usr/bin/paydesk
# Every shared library the binary links or opens at run time (winit and glutin dlopen the
# display libraries) belongs to a package the .deb depends on.
depends="$(dpkg-deb -f "$deb" Depends)"
for so in $(strings /usr/bin/paydesk | grep -oE 'lib[A-Za-z0-9_+-]+\.so\.[0-9]+' \
    | sed -E 's/.*(lib[A-Za-z0-9_+-]*\.so\.[0-9]+)$/\1/' | sort -u); do
  owner="$(dpkg -S "*/$so" 2>/dev/null | head -n1 | cut -d: -f1)" || true
  # Packages no Debian system lacks (libgcc-s1) need no Depends line.
  if [ -n "$owner" ] && dpkg-query -W -f='${Essential}${Protected}\n' "$owner" | grep -q yes; then
    continue
  fi
  if [ -z "$owner" ] || ! grep -qE "(^|[ ,|])$owner( |,|$)" <<<"$depends"; then
    echo "the binary opens $so (package: ${owner:-none installed}), which Depends lacks"; exit 1
  fi
done
test "$(paydesk --version)" = "paydesk $version"
desktop-file-validate "/usr/share/applications/$APP_ID.desktop"
appstreamcli validate --no-net "/usr/share/metainfo/$APP_ID.metainfo.xml"
for size in 16 24 32 48 64 128 256 512; do
  test -s "/usr/share/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
test -s "/usr/share/icons/hicolor/scalable/apps/$APP_ID.svg"
man_page="$(dpkg -L paydesk | grep '^/usr/share/man/man1/paydesk\.1')"
case "$man_page" in *.gz) zcat "$man_page" ;; *) cat "$man_page" ;; esac >"$work/paydesk.1"
grep -q '^\.TH paydesk 1' "$work/paydesk.1"

echo "== start the installed app as its menu entry does, under Xvfb"
# The entry's Exec line, on a fresh data directory: the window opens on the built-in sandbox
# profile, with the X11 class the dock matches to the entry (StartupWMClass), and stays up.
exec_line="$(sed -n 's/^Exec=//p' "/usr/share/applications/$APP_ID.desktop" | sed 's/ %[fFuU]//g')"
grep -qx "StartupWMClass=$APP_ID" "/usr/share/applications/$APP_ID.desktop"
# Xvfb picks a free display and writes its number once it accepts connections.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do
  [ -s "$work/display" ] && break
  sleep 0.1
done
test -s "$work/display" || { echo "Xvfb did not start"; cat "$work/xvfb.log"; exit 1; }
display=":$(tr -d '[:space:]' <"$work/display")"
(
  export DISPLAY="$display" PAYDESK_DATA_DIR="$work/gui-data"
  unset WAYLAND_DISPLAY
  # shellcheck disable=SC2086 # the Exec line is a command line
  exec $exec_line
) >"$work/gui.log" 2>&1 &
gui_pid=$!
window=""
for _ in $(seq 300); do
  window="$(DISPLAY="$display" xdotool search --class "$APP_ID" 2>/dev/null | head -n1)" && [ -n "$window" ] && break
  kill -0 "$gui_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$window" ]; then
  echo "the installed app opened no window of class $APP_ID"; cat "$work/gui.log"; exit 1
fi
echo "window $window on $display: $(DISPLAY="$display" xdotool getwindowname "$window")"
sleep 2
kill -0 "$gui_pid" || { echo "the app quit after opening its window"; cat "$work/gui.log"; exit 1; }
kill "$gui_pid"; wait "$gui_pid" 2>/dev/null || true; gui_pid=""
kill "$xvfb_pid"; wait "$xvfb_pid" 2>/dev/null || true; xvfb_pid=""

echo "== CLI round trip against the installed \`paydesk sandbox\`"
export PAYDESK_DATA_DIR="$work/data"
paydesk sandbox --addr 127.0.0.1:0 >"$work/sandbox.log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 100); do
  grep -q 'listening on' "$work/sandbox.log" && break
  sleep 0.1
done
cat "$work/sandbox.log"
url="$(sed -n 's/^paydesk sandbox listening on \(http[^ ]*\).*/\1/p' "$work/sandbox.log")"
key="$(sed -n 's/^ *API key: *\([^ ]*\).*/\1/p' "$work/sandbox.log")"
secret="$(sed -n 's/^ *API secret: *\([^ ]*\).*/\1/p' "$work/sandbox.log")"
test -n "$url" && test -n "$key" && test -n "$secret"

# A profile on the separate server, its secret from the environment (no keyring here).
paydesk profile add counter --base-url "$url" --api-key "$key"
export PAYDESK_API_SECRET="$secret"
# A field of the JSON on stdin; numbers keep their digits (149.90 stays 149.90).
field() { python3 -c "import json, sys; print(json.load(sys.stdin, parse_float=str)$1)"; }

created="$(paydesk --profile counter link create --amount 149,90 --order-number CI-DEB-1 \
  --description 'Filtre kahve' --item 'Filtre kahve:74.95x2' --installments 1,3 --json)"
echo "$created"
id="$(field "['id']" <<<"$created")"
test "$(field "['status']" <<<"$created")" = PENDING
case "$(field "['paymentUrl']" <<<"$created")" in "$url"/*) ;; *) echo "paymentUrl not on the sandbox"; exit 1 ;; esac

# The same order again is refused (exit 4) and history holds one link for it.
status=0
paydesk --profile counter link create --amount 149.90 --order-number CI-DEB-1 --json || status=$?
test "$status" = 4
test "$(paydesk --profile counter link list --json | field '.__len__()')" = 1

# The customer pays on the sandbox; the refreshed link reads paid.
curl -fsS -X POST -H 'Content-Type: application/json' -d '{"amount": 149.90}' \
  "$url/sandbox/links/$id/pay" >/dev/null
shown="$(paydesk --profile counter link show "$id" --refresh --json)"
echo "$shown"
test "$(field "['status']" <<<"$shown")" = COMPLETED
test "$(field "['paidAmount']" <<<"$shown")" = 149.90

options="$(paydesk --profile counter installments --bin 540061 --amount 1000)"
echo "$options"
grep -q '^540061 Yapı Kredi World' <<<"$options"

kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true; sandbox_pid=""

echo "== remove with dpkg -r"
dpkg -r paydesk
test ! -e /usr/bin/paydesk
test ! -e "/usr/share/applications/$APP_ID.desktop"
test ! -e "/usr/share/icons/hicolor/256x256/apps/$APP_ID.png"
test ! -e "$man_page"
if dpkg -s paydesk 2>/dev/null | grep -q '^Status: install ok installed'; then
  echo "paydesk is still installed"; exit 1
fi
echo "package built, validated, installed, run and removed"
