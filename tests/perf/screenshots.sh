#!/usr/bin/env bash
# Screenshots of every view for the README gallery and the AppStream file, under Xvfb at
# 1024×768 (the smallest screen paydesk is made for), in English and Turkish, light and dark:
# assets/screenshots/{en,tr}-{light,dark}-{view}.png, plus first-start.png and link-result.png,
# the states of {en,tr}-light-{new-link-items,customer-display,customer-display-paid,
# link-result-paid,create-failed,unsent-rows,settings-sending}.png (SHOT_EXTRAS=0 skips them),
# and with staff on (a manager and a clerk added through the CLI afterwards) the lock screen,
# the top bar with a clerk signed in, the manager's approval prompt, the Audit view, the
# Staff view and the day close's table per staff member:
# {en,tr}-light-{lock,clerk,approval,audit,staff,report-staff}.png.
# SHOT_ONLY_STAFF=1 makes only those.
#
# A sandbox runs on its own; the CLI makes a profile pointing at it, imports a catalog and
# creates eight links, and the sandbox's admin route pays some of them (one in part); the CLI
# cancels one. So History, the board and the day close show links in several states, and
# Installments asks the sandbox about a test BIN. Unsent is pictured with a sale waiting (the
# navigation shows it only then): the sandbox answers 500 to that create, and the CLI's
# `pending retry` sends it once the app is closed. The language and theme are the saved
# preferences (eframe's app.ron), written before each start. Needs imagemagick's `import`,
# curl and python3; pngquant or optipng make the files smaller when installed.
#
# The gallery is evidence: every picture is listed by name below (EXPECTED), and the run fails
# (non-zero, naming the picture) when one cannot be made, is empty, or is black or blank; the
# pictures are written to a folder of the run's own and copied to $OUT only when every one was
# made, so a failed run leaves the last good gallery as it was. The X connection is retried:
# Xvfb is started again (three tries) when the app cannot open its window. With a shop
# (SHOT_SHOP=0 skips it; needs Debian's postgresql binaries): a private PostgreSQL cluster, two
# desks joined, and {en,tr}-light-{shop-connected,shop-settings,shop-offline}.png.
source "$(dirname "$0")/common.sh"
need import; need curl; need python3; need convert

# Every picture, by name: the views in each language and theme, then the states.
VIEWS=(new-link link-result board card installments history report pending catalog settings)
STAFF_STATES=(lock clerk approval audit staff report-staff)
EXTRA_STATES=(new-link-items customer-display customer-display-paid link-result-paid create-failed unsent-rows settings-sending)
SHOP_STATES=(shop-connected shop-settings shop-offline)
expected() {
  local l t v
  if [ -z "${SHOT_ONLY_STAFF:-}" ]; then
    for l in ${SHOT_LANGS:-en tr}; do
      for t in ${SHOT_THEMES:-light dark}; do
        for v in "${VIEWS[@]}"; do echo "$l-$t-$v"; done
      done
    done
    echo first-start; echo link-result
  fi
  for l in ${SHOT_LANGS:-en tr}; do
    for v in "${STAFF_STATES[@]}"; do echo "$l-light-$v"; done
    if [ "${SHOT_EXTRAS:-1}" != 0 ]; then
      for v in "${EXTRA_STATES[@]}"; do echo "$l-light-$v"; done
    fi
    if [ "${SHOT_SHOP:-1}" != 0 ]; then
      for v in "${SHOP_STATES[@]}"; do echo "$l-light-$v"; done
    fi
  done
}
fail() { echo "screenshots.sh: could not make $1: $2" >&2; exit 1; }
# Any other command that fails stops the run, naming the picture being made.
NOW="the set-up"
trap 'echo "screenshots.sh: could not make $NOW: line $LINENO failed" >&2' ERR
# SHOT_W, SHOT_H and SHOT_SCALE check other screens (e.g. 1920×1080, or 2048×1536 at scale 2)
# into SHOT_OUT without touching the committed pictures.
OUT="${SHOT_OUT:-$ROOT/assets/screenshots}"
PORT="${PAYDESK_SCREENSHOT_PORT:-47198}"
W="${SHOT_W:-1024}" H="${SHOT_H:-768}" S="${SHOT_SCALE:-1}"
export WINIT_X11_SCALE_FACTOR="$S"
export TZ=Europe/Istanbul PAYDESK_API_SECRET=sk_test_paydesk_demo_secret
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config"
# SHOT_GALLERY: the run's own folder (default a temporary one), kept when given, to look at
# the pictures of a failed run.
GALLERY="${SHOT_GALLERY:-$WORK/gallery}"
mkdir -p "$HOME" "$OUT" "$GALLERY"
DATA="$WORK/paydesk"

seed_shop
pay "$(mk --amount 275 --variant var_san_sebastian --variant var_turk_kahvesi --description 'Paket servis')" ''
pay "$(mk --amount 100 --variant var_simitx4 --description 'Masa 4')" ''
pay "$(mk --amount 450 --partial --item 'Çekirdek kahve 250 g:450' --description 'Kısmi ödeme')" '{"amount":"200.00"}'
TERAS=$(mk --amount 35 --item 'Limonata:35' --description 'Teras')
cli --profile kadikoy link cancel "$TERAS" >/dev/null
pay "$(mk --amount 12.50 --currency EUR --item 'Espresso:3.50x2' --item 'Croissant:5.50' --description Turist)" ''
MASA7=$(mk --amount 170 --variant var_turk_kahvesix2 --description 'Masa 7')
mk --amount 60 --item 'Çay:15x4' --description 'Bahçe 2' >/dev/null
mk --amount 140 --item 'Demlik çay:70x2' --description 'Masa 12' >/dev/null
# Customers not at the counter (issue 30): Masa 7 sent by WhatsApp (it never expires, so the
# board lights its Remind at once), Teras renewed as a new link (History marks both).
cli --profile kadikoy link send "$MASA7" --whatsapp --phone '0532 123 45 67' >/dev/null
cli --profile kadikoy link renew "$TERAS" >/dev/null

XVFB_SCREEN="${W}x${H}x24" start_xvfb

# The preferences eframe reads at start (app.ron in the data folder named after the app id:
# the app's key, the state as RON text).
prefs() {
  mkdir -p "$XDG_DATA_HOME/io.github.paydesk.paydesk"
  printf '{"app":"(lang:%s,theme:%s,last_profile:Some(\\"kadikoy\\"),merchant_name:\\"Kadıköy Kahve Evi\\",slip_paper:Roll80,alert_sound:false)"}' \
    "$1" "$2" >"$XDG_DATA_HOME/io.github.paydesk.paydesk/app.ron"
}

# The navigation (src/app/shell.rs's nav_entries, View::GROUPS): three groups under headings
# that are not clickable; Unsent shows only while a sale waits (or while it is the view
# shown), Audit only with staff on. NAV_UNSENT=1 and NAV_STAFF=1 say which show now.
# Measured at 1024×768 (scale 1): the first heading at y 46, a group's first entry 24.5 below
# its heading, entries 29 apart, the next heading 30.5 below a group's last entry.
NAV_X=$((40 * S))
NAV_UNSENT=0 NAV_STAFF=0
nav_groups() {
  echo "new-link board $([ "$NAV_UNSENT" = 1 ] && echo pending)"
  echo "history report installments card catalog"
  echo "staff $([ "$NAV_STAFF" = 1 ] && echo audit) settings"
}
# y of view $1's entry (at scale S), from the entries shown now; fails for a hidden one.
nav_y() {
  local y=460 groups v # tenths of a pixel
  while read -r -a groups; do
    y=$((y + 245))
    for v in "${groups[@]}"; do
      [ "$v" = "$1" ] && { echo $(((y + 5) / 10 * S)); return 0; }
      y=$((y + 290))
    done
    y=$((y - 290 + 305))
  done < <(nav_groups)
  fail "$NOW" "no navigation entry $1 (unsent $NAV_UNSENT, staff $NAV_STAFF)"
}
# Is the navigation entry at height $1 the selected one? egui fills it with the selection
# colour: #90D1FF in the light theme, #005C80 in the dark one.
nav_selected() {
  local fill
  fill="$(import -window root -crop "$((80 * S))x$((14 * S))+$((12 * S))+$(($1 - 7 * S))" txt:- 2>/dev/null \
    | grep -c -i -e '#9090D1D1FFFF' -e '#90D1FF' -e '#00005C5C8080' -e '#005C80' || true)"
  [ "$fill" -ge $((300 * S * S)) ]
}
# Opens view $1 by its navigation entry, and waits until the entry is the selected one (a
# click the app did not take is made again, three tries).
nav() {
  local y try
  y=$(nav_y "$1")
  for try in 1 2 3; do
    xdotool mousemove "$NAV_X" "$y" click 1; sleep 1.2
    nav_selected "$y" && return 0
    sleep 1
  done
  fail "$NOW" "the navigation's $1 entry (y $y) did not become the selected one"
}
# Where the staff pictures click (at scale 1): the board's first row (rows 48 apart), and per
# language below the result view's Cancel link and its confirmation's Cancel link (right of
# Keep link), which sit lower in English (a wider QR beside a narrower navigation).
BOARD_ROW_X=${BOARD_ROW_X:-300} BOARD_ROW_Y=${BOARD_ROW_Y:-231} BOARD_ROW_STEP=48

# Grabs the screen's top-left W×H (or $2, e.g. 900x760+0+0) as picture $1, three tries;
# fails naming the picture when none worked.
shot() {
  local f="$GALLERY/$1.png" crop="${2:-${W}x${H}+0+0}"
  NOW="the picture after $1"
  for _ in 1 2 3; do
    if import -window root -crop "$crop" "$f" 2>>"$WORK/import.log" && [ -s "$f" ]; then return 0; fi
    xdpyinfo >/dev/null 2>&1 || fail "$1" "the X server went away"
    sleep 1
  done
  fail "$1" "import failed: $(tail -n 1 "$WORK/import.log")"
}

# The app's window, once it is mapped (fails when the app has exited or after 10 s).
find_window() {
  local id=""
  for _ in $(seq 400); do
    id="$(xdotool search --pid "$APP_PID" --name paydesk 2>/dev/null | head -n1 || true)"
    [[ -n "$id" ]] && { echo "$id"; return 0; }
    kill -0 "$APP_PID" 2>/dev/null || return 1
    sleep 0.025
  done
  return 1
}

# Starts the app with arguments "$@" for the pictures named $1 and waits for its window,
# moved to the top left at W×H and focused; sets APP_PID and wid. When no window opens (the
# app could not connect to the X server: "Failed to open connection to X server"), Xvfb is
# started again and the app with it, three tries in all.
launch() {
  local what="$1"; shift
  NOW="$what"
  for try in 1 2 3; do
    "$BIN" "$@" >"$WORK/app.out" 2>"$WORK/app.log" &
    APP_PID=$!
    if wid=$(find_window); then
      xdotool windowsize --sync "$wid" "$W" "$H" || true
      xdotool windowmove --sync "$wid" 0 0 || true
      sleep 3
      xdotool windowfocus --sync "$wid" || true
      return 0
    fi
    echo "screenshots.sh: $what: no window (try $try): $(tail -n 2 "$WORK/app.log")" >&2
    kill "$APP_PID" 2>/dev/null || true; wait "$APP_PID" 2>/dev/null || true; APP_PID=""
    stop_xvfb; sleep 1; XVFB_SCREEN="${W}x${H}x24" start_xvfb
  done
  fail "$what" "the app's window never opened"
}
quit_app() { kill "$APP_PID" 2>/dev/null || true; wait "$APP_PID" 2>/dev/null || true; APP_PID=""; }
# The sandbox's admin routes: the newest link's id, pay a link (body: the amount paid, or
# empty for all of it), make the next calls to an endpoint fail, and no more failures.
newest_link() {
  curl -sf "http://127.0.0.1:$PORT/sandbox/links" | python3 -c '
import json, sys
links = json.load(sys.stdin)["content"]["links"]
print(max(links, key=lambda l: l["referenceNumber"])["id"])'
}
pay_now() { curl -sf -X POST "http://127.0.0.1:$PORT/sandbox/links/$1/pay" -H 'content-type: application/json' -d "${2:-}" >/dev/null; }
fault() { curl -sf -X POST "http://127.0.0.1:$PORT/sandbox/faults" -H 'content-type: application/json' -d "$1" >/dev/null; }
no_faults() { curl -sf -X DELETE "http://127.0.0.1:$PORT/sandbox/faults" -H 'content-type: application/json' >/dev/null; }

for lang in ${SHOT_LANGS:-en tr}; do
  [ -n "${SHOT_ONLY_STAFF:-}" ] && break
  for theme in ${SHOT_THEMES:-light dark}; do
    case $lang in en) L=En; export LANG=en_US.UTF-8 ;; tr) L=Tr; export LANG=tr_TR.UTF-8 ;; esac
    case $theme in light) TH=Light ;; dark) TH=Dark ;; esac
    prefs "$L" "$TH"
    p="$lang-$theme"
    launch "$p-new-link" --data-dir "$DATA" --profile kadikoy
    # New link with an amount typed as at the counter, then the link it makes.
    xdotool type --delay 40 "240"
    sleep 0.5
    shot "$p-new-link"
    xdotool key ctrl+Return; sleep 3
    shot "$p-link-result"
    nav board; shot "$p-board"
    # The customer pays it (so New link opens a new sale below).
    pay_now "$(newest_link)" ''
    nav card; shot "$p-card"
    nav installments
    # Installments: a BIN of the sandbox's fixture and an amount.
    # (The BIN field has the focus when the view opens.)
    xdotool type --delay 40 "554960"; xdotool key Tab
    xdotool type --delay 40 "1000"; xdotool key Return; sleep 2
    shot "$p-installments"
    # (History asks the server about its open links first: a few seconds.)
    nav history; sleep 4; shot "$p-history"
    nav report; sleep 1; shot "$p-report"
    nav catalog; shot "$p-catalog"
    nav settings; shot "$p-settings"
    # Unsent shows in the navigation only while a sale waits: one whose link the server keeps
    # failing to make (a 500 on every try while the picture is taken).
    nav new-link; sleep 0.5
    fault '{"endpoint":"link.create","kind":"error500","next":40}'
    xdotool type --delay 40 "75"; sleep 0.3; xdotool key ctrl+Return; sleep 6
    NAV_UNSENT=1 nav pending; sleep 1; shot "$p-pending"
    no_faults
    quit_app
    # Sent before the next start, so nothing waits then.
    cli --profile kadikoy pending retry --all >/dev/null
  done
done

if [ -z "${SHOT_ONLY_STAFF:-}" ]; then
FIRST_LANG="${SHOT_LANGS:-en tr}"; FIRST_LANG="${FIRST_LANG%% *}"
cp "$GALLERY/$FIRST_LANG-light-link-result.png" "$GALLERY/link-result.png" 2>/dev/null || true
# The first start: a fresh data folder, the built-in sandbox profile, New link.
rm -f "$XDG_DATA_HOME/io.github.paydesk.paydesk/app.ron"
LANG=en_US.UTF-8 launch first-start --data-dir "$WORK/fresh"
shot first-start
quit_app
fi

# Staff: Zeynep the manager (PIN 1111) and Ayşe at the counter (PIN 2222), added through the
# CLI as a shop would. The desk then opens on the lock screen; Ayşe signs in from the keyboard
# (her name's first letters, the PIN, Enter), asks to cancel a link made before staff existed
# (a manager's), which opens the approval prompt; then Zeynep signs in for the Audit view and
# the Staff view.
# Two links to cancel (made before staff: a manager's), on the board's Waiting rows under the
# one clerk's sale left open below (the board's second row): the English run cancels the
# newer (₺50), the Turkish run then the other (₺85).
mk --amount 85 --variant var_turk_kahvesi >/dev/null
mk --amount 50 --variant var_simit --variant var_simit >/dev/null
printf '1111\n' | cli staff add Zeynep --role manager >/dev/null
printf '2222\n' | PAYDESK_STAFF_PIN=1111 cli --as Zeynep staff add Ayşe --role counter >/dev/null
printf '3333\n' | PAYDESK_STAFF_PIN=1111 cli --as Zeynep staff add Mehmet --role counter >/dev/null
# Sales by the two clerks, some paid, for the day close's table per staff member.
pay_as_manager() {
  curl -sf -X POST "http://127.0.0.1:$PORT/sandbox/links/$1/pay" -H 'content-type: application/json' -d "$2" >/dev/null
  PAYDESK_STAFF_PIN=1111 cli --as Zeynep --profile kadikoy link show "$1" --refresh >/dev/null
}
pay_as_manager "$(PAYDESK_STAFF_PIN=2222 mk --as Ayşe --amount 190 --variant var_san_sebastian --description 'Masa 3')" ''
pay_as_manager "$(PAYDESK_STAFF_PIN=2222 mk --as Ayşe --amount 85 --variant var_turk_kahvesi --description 'Masa 9')" ''
pay_as_manager "$(PAYDESK_STAFF_PIN=3333 mk --as Mehmet --amount 50 --variant var_simit --variant var_simit --description 'Paket')" ''
PAYDESK_STAFF_PIN=3333 mk --as Mehmet --amount 120 --item 'Demlik çay:60x2' --description 'Bahçe 5' >/dev/null
# From here on the navigation shows Audit.
NAV_STAFF=1
for lang in ${SHOT_LANGS:-en tr}; do
  case $lang in
    en) L=En CANCEL_X=418 CANCEL_Y=605 YES_X=370 YES_Y=625 ROW=1; export LANG=en_US.UTF-8 ;;
    tr) L=Tr CANCEL_X=437 CANCEL_Y=569 YES_X=420 YES_Y=584 ROW=1; export LANG=tr_TR.UTF-8 ;;
  esac
  prefs "$L" Light
  p="$lang-light"
  launch "$p-lock" --data-dir "$DATA" --profile kadikoy
  shot "$p-lock"
  xdotool type --delay 60 "ay2222"; xdotool key Return; sleep 2
  xdotool type --delay 40 "240"; sleep 0.5
  shot "$p-clerk"
  # The board's newest row (the link made above), its Cancel link, the confirmation's Yes.
  nav board; sleep 1
  xdotool mousemove $((BOARD_ROW_X * S)) $(((BOARD_ROW_Y + ROW * BOARD_ROW_STEP) * S)) click 1
  sleep 1.5
  xdotool mousemove $((CANCEL_X * S)) $((CANCEL_Y * S)) click 1; sleep 0.8
  [ -n "${SHOT_DEBUG:-}" ] && shot "$p-debug-confirm"
  xdotool mousemove $((YES_X * S)) $((YES_Y * S)) click 1; sleep 2
  shot "$p-approval"
  # Zeynep's PIN (the only manager is chosen): the link is cancelled, Ayşe stays signed in.
  xdotool type --delay 60 "1111"; xdotool key Return; sleep 2
  xdotool key ctrl+l; sleep 1
  xdotool type --delay 60 "ze1111"; xdotool key Return; sleep 2
  nav audit; sleep 1.5; shot "$p-audit"
  nav staff; sleep 1.5; shot "$p-staff"
  # The day close, scrolled to its table per staff member and the audit chain's head.
  nav report; sleep 1.5
  xdotool mousemove $((600 * S)) $((500 * S))
  for _ in $(seq 15); do xdotool click 5; done; sleep 1
  shot "$p-report-staff"
  quit_app
done

# The states a clerk meets that the views alone do not show (SHOT_EXTRAS=0 skips them), in
# light mode in each language: New link with five items, the link they make on the customer
# display waiting and then paid (the sandbox's admin route pays it), the paid result, an
# error with its Details open (the sandbox answers 500 once) and Unsent with rows (three
# answers lost while the link was being made).
# Where they click, at scale 1 (the result view's Customer display, the error's Details,
# New link's Add item); the view's content starts right of the navigation, as wide as its
# longest entry in the language (CX).
DISPLAY_X=798 DISPLAY_Y=283 ADD_ITEM_Y=201
# The error's Details fold is the last line of the error's box, under a sentence of one line
# (while the background re-send runs) or two: it is found from the box's lower border (the
# warning colour down the box's left edge), clicked, and the box must grow.
details_bottom() {
  import -window root -crop "1x$((400 * S))+$(((CX + 1) * S))+$((85 * S))" txt:- 2>/dev/null \
    | awk -F'[,:]' -v s="$S" '/#A0A05F5F0000|#A05F00/ { y = $2 } END { print (y == "" ? 0 : int(y / s) + 85) }'
}
open_details() {
  local bottom
  for _ in 1 2 3 4; do
    bottom=$(details_bottom)
    [ "$bottom" -gt 200 ] && return 0
    [ "$bottom" -gt 100 ] && xdotool mousemove $(((CX + 46) * S)) $(((bottom - 19) * S)) click 1
    sleep 1.5
  done
  fail "$NOW" "the error's Details did not open (the box ends at y $bottom)"
}
for lang in ${SHOT_LANGS:-en tr}; do
  [ "${SHOT_EXTRAS:-1}" = 0 ] && break
  case $lang in en) L=En CX=174; export LANG=en_US.UTF-8 ;; tr) L=Tr CX=228; export LANG=tr_TR.UTF-8 ;; esac
  p="$lang-light"
  prefs "$L" Light
  launch "$p-new-link-items" --data-dir "$DATA" --profile kadikoy
  # (Staff are on by now: Zeynep signs in first.)
  xdotool type --delay 60 "ze1111"; xdotool key Return; sleep 2
  # The amount, then five items typed at the counter: Add item, then name, quantity and
  # price (Tab between them; Enter adds the next row).
  xdotool type --delay 40 "420"; sleep 0.3
  xdotool mousemove $(((CX + 45) * S)) $((ADD_ITEM_Y * S)) click 1; sleep 0.5
  first=1
  # (Names without Turkish letters: Xvfb's keymap has none for xdotool to type.)
  for item in "Simit:3:25" "Filtre kahve:2:85" "Tost:2:60" "Su:2:10" "Limonata:1:35"; do
    [ "$first" = 1 ] || { xdotool key Return; sleep 0.4; }
    first=0
    IFS=: read -r name qty price <<<"$item"
    xdotool type --delay 30 "$name"; xdotool key Tab; sleep 0.2
    xdotool type --delay 30 "$qty"; xdotool key Tab; sleep 0.2
    xdotool type --delay 30 "$price"; sleep 0.3
  done
  xdotool key Escape
  sleep 1; shot "$p-new-link-items"
  # The link, on the customer display (a window of its own), waiting and then paid.
  xdotool key ctrl+Return; sleep 3
  xdotool mousemove $((DISPLAY_X * S)) $((DISPLAY_Y * S)) click 1; sleep 3
  # (A GL window grabs black on its own under Xvfb: the screen is grabbed where it lies.)
  # (The app's other window; a GL window grabs black on its own under Xvfb, so the screen is
  # grabbed where the window lies: 900×760 at the top left.)
  cwid=$(xdotool search --pid "$APP_PID" --name . | grep -vx "$wid" | head -n1)
  customer() { shot "$1" 900x760+0+0; }
  customer "$p-customer-display"
  pay_now "$(newest_link)" ''; sleep 8
  customer "$p-customer-display-paid"
  # The customer's window out of the way (it faces the customer on a screen of its own).
  [ -n "$cwid" ] && xdotool windowmove "$cwid" "$W" 0; sleep 1
  shot "$p-link-result-paid"
  # A link the server keeps failing to make (a 500 on every try while the pictures are
  # taken): the error with its Details open, and the sale waiting in Unsent.
  nav new-link; sleep 1
  fault '{"endpoint":"link.create","kind":"error500","next":40}'
  xdotool type --delay 40 "75"; sleep 0.3; xdotool key ctrl+Return; sleep 6
  open_details
  shot "$p-create-failed"
  NAV_UNSENT=1
  nav pending; sleep 1; shot "$p-unsent-rows"
  # Settings scrolled to its end: E-mail and Sending to customers (issue 30). Opened while
  # the sale still waits (Unsent in the navigation): once the server answers again the
  # background re-send makes the link, and from Unsent the app would go to New link to show
  # it.
  nav settings; no_faults; sleep 1.5
  xdotool mousemove $((600 * S)) $((500 * S))
  for _ in $(seq 40); do xdotool click 5; done; sleep 1
  shot "$p-settings-sending"
  quit_app
  # Sent before the next start, so nothing waits then.
  PAYDESK_STAFF_PIN=1111 cli --as Zeynep --profile kadikoy pending retry --all >/dev/null
  NAV_UNSENT=0
done

# A shop of two desks on a private PostgreSQL cluster (SHOT_SHOP=0 skips it): Kasa 1 (a data
# folder of its own, no staff) and Kasa 2 join it; each makes links, some paid. Kasa 1 opens
# with the shop connected (Open links lists both desks' links; Settings' shop section), then
# the cluster stops and the same board says the shop is out of reach.
if [ "${SHOT_SHOP:-1}" != 0 ]; then
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  [ -x "$PG_BIN/initdb" ] || fail "the shop's pictures" \
    "no PostgreSQL binaries under /usr/lib/postgresql (apt install postgresql, or SHOT_SHOP=0)"
  PG_PORT="${PAYDESK_SCREENSHOT_PG_PORT:-47199}" PGDIR="$WORK/pg" PGSOCK="$WORK/pgsock"
  mkdir -p "$PGDIR" "$PGSOCK"
  as_pg=(env LC_ALL=C LANG=C)
  if [ "$(id -u)" = 0 ]; then
    # PostgreSQL refuses to run as root: the cluster is the postgres user's.
    chmod o+x "$WORK"; chown postgres "$PGDIR" "$PGSOCK"
    as_pg=(runuser -u postgres -- env LC_ALL=C LANG=C)
  fi
  pg_up() {
    "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$PGDIR" -l "$PGDIR/server.log" -w \
      -o "-p $PG_PORT -k $PGSOCK -c listen_addresses=127.0.0.1" start >/dev/null
  }
  pg_down() { "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$PGDIR" -m immediate -w stop >/dev/null || true; }
  "${as_pg[@]}" "$PG_BIN/initdb" -D "$PGDIR" -U postgres --auth=trust -E UTF8 >/dev/null
  pg_up
  trap 'pg_down; kill $SANDBOX_PID 2>/dev/null || true; cleanup' EXIT
  "${as_pg[@]}" "$PG_BIN/createdb" -h "$PGSOCK" -p "$PG_PORT" -U postgres paydesk
  OWNER="postgres://postgres@127.0.0.1:$PG_PORT/paydesk?sslmode=disable"
  echo owner | "$BIN" --data-dir "$WORK/owner" shop init "$OWNER" >/dev/null
  desk_login() {
    echo owner | "$BIN" --data-dir "$WORK/owner" shop add-desk "$1" "$OWNER" --json \
      | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["url"], d["password"])'
  }
  read -r URL1 PW1 < <(desk_login "Kasa 1")
  read -r URL2 PW2 < <(desk_login "Kasa 2")
  SHOP1="$WORK/kasa1" SHOP2="$WORK/kasa2"
  for d in 1 2; do
    dir="$WORK/kasa$d"; url="URL$d"; pw="PW$d"
    "$BIN" --data-dir "$dir" profile add kadikoy --base-url "http://127.0.0.1:$PORT" \
      --api-key pk_test_paydesk_demo --order-prefix "K$d" >/dev/null
    PAYDESK_SHOP_PASSWORD="${!pw}" "$BIN" --data-dir "$dir" shop join "${!url}" >/dev/null
  done
  shop_mk() {
    local dir="$WORK/kasa$1" pw="PW$1"; shift
    PAYDESK_SHOP_PASSWORD="${!pw}" "$BIN" --data-dir "$dir" --profile kadikoy link create --json "$@" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
  }
  shop_pay() {
    curl -sf -X POST "http://127.0.0.1:$PORT/sandbox/links/$2/pay" -H 'content-type: application/json' -d '' >/dev/null
    PAYDESK_SHOP_PASSWORD="$([ "$1" = 1 ] && echo "$PW1" || echo "$PW2")" \
      "$BIN" --data-dir "$WORK/kasa$1" --profile kadikoy link show "$2" --refresh >/dev/null
  }
  shop_pay 1 "$(shop_mk 1 --amount 190 --item 'San Sebastian:190' --description 'Masa 2')"
  shop_mk 1 --amount 85 --item 'Türk kahvesi:85' --description 'Masa 5' >/dev/null
  shop_pay 2 "$(shop_mk 2 --amount 120 --item 'Demlik çay:60x2' --description 'Bahçe 1')"
  shop_mk 2 --amount 45 --item 'Simit:15x3' --description 'Paket' >/dev/null
  # Kasa 1 has no staff: no Audit.
  NAV_STAFF=0
  for lang in ${SHOT_LANGS:-en tr}; do
    case $lang in en) L=En; export LANG=en_US.UTF-8 ;; tr) L=Tr; export LANG=tr_TR.UTF-8 ;; esac
    p="$lang-light"
    prefs "$L" Light
    PAYDESK_SHOP_PASSWORD="$PW1" launch "$p-shop-connected" --data-dir "$SHOP1" --profile kadikoy
    nav board; sleep 2; shot "$p-shop-connected"
    # Settings scrolled to its shop section.
    nav settings; sleep 1.5
    xdotool mousemove $((600 * S)) $((500 * S))
    for _ in $(seq "${SHOT_SHOP_SCROLL:-5}"); do xdotool click 5; done; sleep 1
    shot "$p-shop-settings"
    # The shop out of reach: the board says so and keeps the last rows.
    nav board; sleep 1
    pg_down
    sleep "${SHOT_OFFLINE_WAIT:-12}"
    shot "$p-shop-offline"
    quit_app
    pg_up
  done
fi

# Every picture listed, made, and neither black nor blank (a GL window grabbed black, a
# window that never drew): else the run fails naming each, and $OUT is left as it was.
bad=()
while read -r name; do
  f="$GALLERY/$name.png"
  if [ ! -s "$f" ]; then bad+=("$name: not made"); continue; fi
  read -r mean deviation < <(convert "$f" -colorspace Gray -format '%[fx:mean] %[fx:standard_deviation]\n' info:)
  if awk -v m="$mean" -v d="$deviation" 'BEGIN { exit !(m < 0.03 || d < 0.01) }'; then
    bad+=("$name: black or blank (mean $mean, deviation $deviation)")
  fi
done < <(expected)
# Two states pictured the same (a click that missed leaves the screen as it was): the later
# one was not made.
declare -A seen=()
while read -r name; do
  f="$GALLERY/$name.png"
  [ -s "$f" ] || continue
  [ "$name" = link-result ] && continue # a copy of the first language's, by design
  sum=$(identify -format '%#' "$f")
  if [ -n "${seen[$sum]:-}" ]; then
    bad+=("$name: the same picture as ${seen[$sum]} (the state never showed)")
  else
    seen[$sum]="$name"
  fi
done < <(expected)
if [ "${#bad[@]}" -gt 0 ]; then
  printf 'screenshots.sh: could not make %s\n' "${bad[@]}" >&2
  exit 1
fi

# Smaller files: palette quantisation when available, else lossless recompression.
shopt -s nullglob
for f in "$GALLERY"/*.png; do
  if command -v pngquant >/dev/null; then pngquant --force --skip-if-larger --output "$f" -- "$f" || true
  elif command -v optipng >/dev/null; then optipng -quiet -o2 "$f"
  else convert "$f" -strip "$f"; fi
done
shots=("$GALLERY"/*.png)
cp "${shots[@]}" "$OUT"/
echo "wrote ${#shots[@]} screenshots to $OUT"
