#!/usr/bin/env bash
# The Day close screenshot for the README (assets/screenshots/report.png) and the History one
# (assets/screenshots/history.png), under Xvfb, in Istanbul time; it also prints the seeded
# day's `paydesk report` (the README's example).
#
# A sandbox runs on its own; the CLI creates 28 links on a profile pointing at it (catalog and
# typed-in items, TRY and EUR), the sandbox's admin route pays most of them (four in part), the
# CLI refreshes them and cancels a few. Every payment lands within the same minute, so before
# the app starts, python3's sqlite3 module spreads the payment times (never the creation
# times, which the history's order rests on) over the shop's day
# (09:00-21:59 local) in the history file: the hour chart then looks like a day at the counter.
# Needs imagemagick's `import`, curl and python3.
source "$(dirname "$0")/common.sh"
need import; need curl; need python3
OUT="$ROOT/assets/screenshots"
PORT="${PAYDESK_SCREENSHOT_PORT:-47199}"
export TZ=Europe/Istanbul PAYDESK_API_SECRET=sk_test_paydesk_demo_secret
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config"
export LANG=en_US.UTF-8 LC_ALL=
mkdir -p "$HOME" "$OUT"
DATA="$WORK/paydesk"

seed_shop
for i in $(seq 1 26); do
  case $((i % 7)) in
    0) id=$(mk --amount 170 --variant var_turk_kahvesix2 --description "Masa $i") ;;
    1) id=$(mk --amount 275 --variant var_san_sebastian --variant var_turk_kahvesi --description "Paket servis $i") ;;
    2) id=$(mk --amount 100 --variant var_simitx4 --description "Simit $i") ;;
    3) id=$(mk --amount 60 --item "Çay:15x4" --description "Bahçe $i") ;;
    4) id=$(mk --amount 130 --item "Çay:15x3" --variant var_turk_kahvesi --description "Masa $i") ;;
    5) id=$(mk --amount 450 --partial --item "Çekirdek kahve 250 g:450" --description "Kısmi $i") ;;
    6) id=$(mk --amount 35 --item "Limonata:35" --description "Teras $i") ;;
  esac
  if [ $((i % 7)) -eq 5 ]; then pay "$id" '{"amount":"200.00"}'
  elif [ $((i % 9)) -eq 4 ]; then cli --profile kadikoy link cancel "$id" >/dev/null
  elif [ $((i % 6)) -ne 2 ]; then pay "$id" ''; fi
done
pay "$(mk --amount 12.50 --currency EUR --item 'Espresso:3.50x2' --item 'Croissant:5.50' --description Turist)" ''
pay "$(mk --amount 9 --currency EUR --item 'Espresso:3x3' --description 'Turist 2')" ''

python3 - "$DATA/paydesk.sqlite3" <<'PY'
import datetime, random, sqlite3, sys
random.seed(11)
con = sqlite3.connect(sys.argv[1])
today = datetime.datetime.now().date()
hours = [9, 10, 10, 11, 12, 12, 12, 13, 13, 14, 15, 16, 17, 17, 18, 18, 19, 19, 20, 21]
for link_id, status, paid in con.execute("SELECT id, status, paid_amount FROM links").fetchall():
    if paid in (None, "0", "0.00"):
        continue
    local = datetime.datetime.combine(today, datetime.time(random.choice(hours), random.randrange(60)))
    ms = int(local.timestamp() * 1000)
    utc = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if status == "COMPLETED":
        con.execute("UPDATE links SET completed_date = ?, updated_at = ? WHERE id = ?",
                    (utc, ms, link_id))
    else:
        con.execute("UPDATE links SET updated_at = ? WHERE id = ?", (ms, link_id))
con.commit()
PY
# The day's report as text (the README's Day close example).
cli --profile kadikoy report

start_xvfb
"$BIN" --data-dir "$DATA" --profile kadikoy >"$WORK/app.out" 2>"$WORK/app.log" &
APP_PID=$!
wid=$(wait_window)
xdotool windowsize --sync "$wid" 1280 860 || true
xdotool windowmove --sync "$wid" 0 0 || true
sleep 3
# The navigation (View::ALL, 28 px apart from y 49): History is the fifth entry, Day close the
# sixth.
xdotool mousemove 43 189 click 1
sleep 2
import -window root -crop 1280x860+0+0 "$OUT/report.png"
xdotool mousemove 37 161 click 1
sleep 1
# With no window manager, keys go to the window only once it has the focus.
xdotool windowfocus --sync "$wid"
# History filtered to today (the From and To day fields).
xdotool mousemove 340 103 click 1
sleep 0.3
xdotool type --delay 40 "$(date +%F)"
sleep 0.3
xdotool mousemove 605 103 click 1
sleep 0.3
xdotool type --delay 40 "$(date +%F)"
sleep 0.3
xdotool key Return
sleep 1.5
import -window root -crop 1280x860+0+0 "$OUT/history.png"
echo "wrote $OUT/report.png and $OUT/history.png"
