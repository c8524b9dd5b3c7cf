#!/bin/sh
# test_toed_client_ready.sh - `toectl wait-ready`: how a script waits for a toed started with --foreground.
#
# 1. nothing answers: wait-ready gives up after --timeout with exit 5 and says so;
# 2. wait-ready is started first, toed a second later: wait-ready returns 0
#    once toed is ready (READY=1 already sent), and a client subscribing at
#    that moment from the start receives every tick of the truth;
# 3. a toed that cannot start (a bad configuration) never becomes ready: exit 5;
# 4. usage errors exit 2.
# Needs no root. Takes about 6 s.
. "$(dirname "$0")/toed_common.sh"

elapsed_ms() { # START_NS
	echo $((($(date +%s%N) - $1) / 1000000))
}

# ---- 1. nothing there
t0=$(date +%s%N)
"$TOECTL" -s "$TMP/toed.sock" wait-ready --timeout 0.5 >"$TMP/w1.out" 2>"$TMP/w1.err"
rc=$?
ms=$(elapsed_ms "$t0")
[ "$rc" -eq 5 ] || fail "no daemon: wait-ready exited $rc, expected 5 ($(cat "$TMP/w1.err"))"
grep -q "not ready after 0.5 s: nothing answers at $TMP/toed.sock" "$TMP/w1.err" ||
	fail "no daemon: message: $(cat "$TMP/w1.err")"
[ "$ms" -ge 500 ] && [ "$ms" -lt 3000 ] || fail "no daemon: wait-ready took $ms ms for --timeout 0.5"
say "nothing answers: exit 5 after $ms ms, saying so"

# ---- 2. wait first, start toed later
mkfeed 800 17 --fin
start_notify
conf "$TMP/toed.conf"
"$TOECTL" -s "$TMP/toed.sock" wait-ready --timeout 20 >"$TMP/w2.out" 2>"$TMP/w2.err" &
wpid=$!
bg_pid $wpid
sleep 1
kill -0 "$wpid" 2>/dev/null || fail "wait-ready returned before toed was started: $(cat "$TMP/w2.out" "$TMP/w2.err")"
start_toed "$TMP/toed.conf"
wait_exit "$wpid" 20 || fail "wait-ready still waiting 20 s after toed started"
[ "$WAIT_RC" -eq 0 ] || fail "wait-ready exited $WAIT_RC: $(cat "$TMP/w2.err")"
grep -q 'READY=1' "$TMP/notify.log" || fail "wait-ready returned before toed sent READY=1"
grep -q '^toed is ready' "$TMP/w2.out" || fail "wait-ready printed: $(cat "$TMP/w2.out")"
"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --types trade,order --count "$(wc -l <"$TMP/truth.jsonl")" \
	--timeout 20 -o "$TMP/got" 2>"$TMP/client.err" || fail "client after wait-ready: $(cat "$TMP/client.err")"
cmp -s "$TMP/got" "$TMP/truth.jsonl" || fail "the client's ticks differ from the truth"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
say "wait-ready started first returns 0 once toed is ready; a client then gets all $(wc -l <"$TMP/truth.jsonl") ticks"

# ---- 3. a toed that cannot start
conf "$TMP/bad.conf" "[tcp]
connections = banana"
start_toed "$TMP/bad.conf"
"$TOECTL" -s "$TMP/toed.sock" wait-ready --timeout 1.5 >/dev/null 2>"$TMP/w3.err"
rc=$?
[ "$rc" -eq 5 ] || fail "bad configuration: wait-ready exited $rc, expected 5"
wait_exit "$TOED_PID" 5 || fail "toed with a bad configuration did not exit"
TOED_PID=
[ "$WAIT_RC" -ne 0 ] || fail "toed with a bad configuration exited 0"
say "a toed that cannot start: exit 5 (toed exited $WAIT_RC)"

# ---- 4. usage
"$TOECTL" wait-ready --timeout soon >/dev/null 2>&1
[ $? -eq 2 ] || fail "--timeout soon: not a usage error"
"$TOECTL" status --timeout 3 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--timeout with status: not a usage error"
"$TOECTL" --help | grep -q 'wait-ready' || fail "toectl --help does not mention wait-ready"

echo "PASS: toectl wait-ready waits for a toed started in the foreground"
exit 0
