#!/bin/sh
# test_toed_toectl.sh - toectl status|stats|clients|reload [--json] against a running toed.
#
# A replay of a known capture (mkpcap prints its frame count; toe-fastgen's
# truth its record count), then:
#   - status: ready, the configuration file, the source, data plane state
#     (replay-ended), live settings; --json parses;
#   - stats: the counters of every block agree with what was sent: frames,
#     records, the connection (exchange and vendor endpoints, bytes = the feed's
#     size, no gap), the stream (records, messages), the publisher; --json
#     parses and holds the same numbers;
#   - clients: a slow client with a ring of 64 that does not read yet: 3001
#     offered (3000 ticks and the stream's reset), 64 delivered, 2937 dropped;
#   - errors: no daemon (exit 1), usage (exit 2), reload by another user
#     (exit 4, as root only).
# Needs no root (the last check runs as root). Takes about 4 s.
. "$(dirname "$0")/toed_common.sh"

mkfeed 3000 71 --fin
frames=$("$OUT/mkpcap" --fin "$TMP/feed.step" "$TMP/feed.pcap" | cut -d' ' -f1)
feed_bytes=$(stat -c %s "$TMP/feed.step")
start_notify
conf "$TMP/toed.conf"
start_toed "$TMP/toed.conf"
wait_for "$TMP/toed.log" 'pcap replay over' 10 || fail "the replay did not end"
C="$TOECTL -s $TMP/toed.sock"

# the JSON checks need python3 (the system's, not a slow shim, when there is one)
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
json_get() { # FILE PYTHON-EXPRESSION (d is the document)
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
have_py=0
"$PY" -c 'import json' 2>/dev/null && have_py=1

# ---- status
$C status >"$TMP/status.txt" || fail "toectl status exited $?"
grep -q "^  state  *ready" "$TMP/status.txt" || fail "status: not ready: $(cat "$TMP/status.txt")"
grep -q "^  config  *$TMP/toed.conf" "$TMP/status.txt" || fail "status: no configuration path"
grep -q "^  state  *replay-ended" "$TMP/status.txt" || fail "status: data plane state"
grep -q "^  gap_timeout_ms  *50" "$TMP/status.txt" || fail "status: live settings"
$C status --json >"$TMP/status.json" || fail "toectl status --json exited $?"
if [ $have_py -eq 1 ]; then
	[ "$(json_get "$TMP/status.json" 'd["dataplane"]["state"]')" = "replay-ended" ] || fail "status --json"
	[ "$(json_get "$TMP/status.json" 'd["pid"]')" = "$TOED_PID" ] || fail "status --json: pid"
fi
say "status: ready, configuration, source, data plane, live settings (text and JSON)"

# ---- stats
$C stats >"$TMP/stats.txt" || fail "toectl stats exited $?"
val() { # SECTION-HEADING KEY: the value under the first [SECTION...] heading
	awk -v sec="$1" -v key="$2" '/^\[/ { insec = index($0, "[" sec) == 1 } insec && $1 == key { print $2; exit }' \
		"$TMP/stats.txt"
}
[ "$(val pipeline frames)" = "$frames" ] || fail "stats: pipeline frames $(val pipeline frames), sent $frames"
[ "$(val 'receive pipeline' records)" = "3000" ] || fail "stats: records $(val 'receive pipeline' records)"
[ "$(val 'connection 0' exchange)" = "10.1.0.10:5261" ] || fail "stats: connection exchange"
[ "$(val 'connection 0' vendor)" = "10.1.0.2:40001" ] || fail "stats: connection vendor"
[ "$(val 'connection 0' bytes)" = "$feed_bytes" ] || fail "stats: connection bytes $(val 'connection 0' bytes), feed $feed_bytes"
[ "$(val 'connection 0' feed)" = "sse" ] || fail "stats: connection feed name"
[ -z "$(val 'connection 0' gaps)" ] || fail "stats: gaps on a clean capture"
[ "$(val 'stream 0' records)" = "3000" ] || fail "stats: stream records"
msgs=$(awk -F'"msg_seq":' '{ split($2, a, ","); print a[1] }' "$TMP/truth.jsonl" | sort -un | wc -l)
[ "$(val 'stream 0' messages)" = "$msgs" ] || fail "stats: stream messages $(val 'stream 0' messages), truth $msgs"
[ "$(val publisher published)" = "3001" ] || fail "stats: published $(val publisher published)"
$C stats --json >"$TMP/stats.json" || fail "toectl stats --json exited $?"
if [ $have_py -eq 1 ]; then
	[ "$(json_get "$TMP/stats.json" 'd["rx"]["records"]')" = "3000" ] || fail "stats --json: rx.records"
	[ "$(json_get "$TMP/stats.json" 'd["connections"][0]["bytes"]')" = "$feed_bytes" ] || fail "stats --json: bytes"
	[ "$(json_get "$TMP/stats.json" 'd["net"]["tcp.drop_tcp_csum"]')" = "0" ] || fail "stats --json: drops"
	[ "$(json_get "$TMP/stats.json" 'd["streams"][0]["errors"]')" = "{}" ] || fail "stats --json: decode errors"
fi
say "stats: $frames frames, 3000 records, connection of $feed_bytes bytes, $msgs messages (text and JSON)"

# ---- clients: a slow reader
"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --capacity 64 --pause-ms 3000 --count 64 --timeout 10 \
	--ready "$TMP/slow.ready" >/dev/null 2>&1 &
slow=$!
bg_pid $slow
wait_file "$TMP/slow.ready" 10 || fail "the slow client did not subscribe"
sleep 0.5
$C clients >"$TMP/clients.txt" || fail "toectl clients exited $?"
line=$(awk -v p="$slow" '$2 == p' "$TMP/clients.txt")
[ -n "$line" ] || fail "clients: the slow client (pid $slow) is not listed: $(cat "$TMP/clients.txt")"
# shellcheck disable=SC2086
set -- $line
[ "$6" = 64 ] && [ "$7" = 64 ] && [ "$8" = 2937 ] ||
	fail "clients: ring $6, delivered $7, dropped $8; expected 64, 64, 2937"
if [ $have_py -eq 1 ]; then
	$C clients --json >"$TMP/clients.json" || fail "toectl clients --json"
	got=$(json_get "$TMP/clients.json" "[(c['offered'], c['delivered'], c['dropped']) for c in d if c['pid'] == $slow][0]")
	[ "$got" = "(3001, 64, 2937)" ] || fail "clients --json: $got"
fi
$C stats >"$TMP/stats2.txt"
grep -q "^[0-9]* *$slow .* 2937 " "$TMP/stats2.txt" || fail "stats: the client table lacks the slow client's drops"
say "clients: a ring of 64 not read: 3001 offered, 64 delivered, 2937 dropped"

# ---- errors
"$TOECTL" -s "$TMP/none.sock" status >/dev/null 2>&1
[ $? -eq 1 ] || fail "toectl without a daemon must exit 1"
$C frobnicate >/dev/null 2>&1
[ $? -eq 2 ] || fail "toectl with an unknown command must exit 2"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 666 "$TMP/toed.sock"
	setpriv --reuid=65534 --regid=65534 --clear-groups $C reload >"$TMP/reload.out" 2>&1
	rc=$?
	[ $rc -eq 4 ] || fail "toectl reload as nobody exited $rc, not 4: $(cat "$TMP/reload.out")"
	setpriv --reuid=65534 --regid=65534 --clear-groups $C status >/dev/null 2>&1 ||
		fail "toectl status as another user (with access to the socket)"
	say "errors: no daemon 1, usage 2, reload by another user 4 (status allowed)"
else
	say "errors: no daemon 1, usage 2"
fi

stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
echo "PASS: toectl status, stats, clients, reload"
exit 0
