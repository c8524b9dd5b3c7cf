#!/bin/sh
# test_feedsim_session.sh - a STEP session over real Linux TCP on loopback: toe-feedsim --session (the
# exchange's end, tools/feed/feed_sess.c) against toe-sockrx --session (the vendor's end, the session layer
# toed uses, kernels/step/step_sess.c).
#
#   1. session:   logon with CompIDs, Username and a password file, a paced feed, the session held with
#                 1 s heartbeats, the exchange's Logout; every record arrives (the records equal feedsim's
#                 --truth except msg_seq: data messages are re-stamped into the session's sequence, which the
#                 heartbeats share), no MsgSeqNum gap or repeat, heartbeats went both ways;
#   2. refused:   a wrong password: the exchange answers with a Logout saying why, both exit 1;
#   3. silent:    the vendor process is stopped (SIGSTOP) after logging on: the exchange sends a TestRequest
#                 after HeartBtInt + margin and gives up after as long again (exit 1, the reasons printed);
#   4. usage:     session options without --session, --session over UDP (exit 2).
# No namespaces and no root: loopback only, ports derived from the PID.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=conf/templates/sse-l2-3201-5801.xml
FEEDSIM=$BUILD/bin/toe-feedsim
SOCKRX=$BUILD/bin/toe-sockrx

script_needs_tools timeout cmp sed grep
script_needs_built "$FEEDSIM" "$SOCKRX"
script_workdir toe-session
start=$(date +%s)
PORT=$((20000 + $$ % 20000))

expect_rc() { # rc command...
	want=$1
	shift
	"$@" >"$WORK/rc.out" 2>&1
	got=$?
	[ "$got" = "$want" ] || { cat "$WORK/rc.out"; fail "exit $got, expected $want: $*"; }
}
has() { # file text
	grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 does not say: $2"; }
}

# ---- 4. usage -----------------------------------------------------------------
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES" --listen 127.0.0.1:9 --username u
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES" --udp 127.0.0.1:9 --session
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES" --listen 127.0.0.1:9 --session --password a --password-file /x
expect_rc 2 "$SOCKRX" --templates "$TEMPLATES" --udp 127.0.0.1:9 --session
expect_rc 2 "$SOCKRX" --templates "$TEMPLATES" --connect 127.0.0.1:9 --heartbeat-s 5

printf 's3cret\n' >"$WORK/pw"
chmod 600 "$WORK/pw"

# ---- 1. a whole session ---------------------------------------------------------
n=session
P=$((PORT + 1))
timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --records 5000 --seed 21 --rate 5000 --listen 127.0.0.1:$P \
	--session --sender-comp-id SSE --target-comp-id VENDOR1 --username v1 --password-file "$WORK/pw" \
	--hold-ms 3000 --logout "end of day" --truth "$WORK/$n.truth" --wait-ms 20000 2>"$WORK/$n.simerr" &
spid=$!
pids="$pids $spid"
timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect 127.0.0.1:$P --wait-ms 20000 --session \
	--sender-comp-id VENDOR1 --target-comp-id SSE --username v1 --password s3cret --heartbeat-s 1 \
	--out "$WORK/$n.rx" 2>"$WORK/$n.rxerr" || { cat "$WORK/$n.rxerr"; fail "$n: toe-sockrx failed"; }
wait "$spid" || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim failed"; }
has "$WORK/$n.simerr" "session: logged on with VENDOR1, HeartBtInt 1 s"
has "$WORK/$n.rxerr" "session: logged on with SSE, HeartBtInt 1 s, peer MsgSeqNum 1"
has "$WORK/$n.rxerr" "session: peer logged out: end of day"
has "$WORK/$n.rxerr" "0 gaps (0 messages missing), 0 repeats, 0 restarts"
sed 's/"msg_seq":[0-9]*,//' "$WORK/$n.truth" >"$WORK/$n.t"
sed 's/"msg_seq":[0-9]*,//' "$WORK/$n.rx" >"$WORK/$n.r"
[ "$(wc -l <"$WORK/$n.t")" = 5000 ] || fail "$n: the truth has $(wc -l <"$WORK/$n.t") records, not 5000"
cmp -s "$WORK/$n.t" "$WORK/$n.r" || fail "$n: the records received differ from the truth"
# 3 s held at HeartBtInt 1: both ends sent heartbeats while idle
hb_rx=$(sed -n 's/.*restarts; \([0-9]*\) heartbeats.*/\1/p' "$WORK/$n.rxerr")
hb_sim=$(sed -n 's/.*session: \([0-9]*\) heartbeats and.*/\1/p' "$WORK/$n.simerr")
[ "${hb_rx:-0}" -ge 2 ] && [ "${hb_sim:-0}" -ge 2 ] || {
	cat "$WORK/$n.simerr" "$WORK/$n.rxerr"
	fail "$n: expected heartbeats both ways while held, got $hb_sim from the exchange, $hb_rx from the vendor"
}
echo "ok: $n ($(($(date +%s) - start)) s; 5000 records, heartbeats $hb_sim / $hb_rx, Logout)"

# ---- 2. a wrong password ---------------------------------------------------------
n=refused
P=$((PORT + 2))
timeout 30 "$FEEDSIM" --templates "$TEMPLATES" --records 100 --listen 127.0.0.1:$P --session --username v1 \
	--password-file "$WORK/pw" --wait-ms 20000 2>"$WORK/$n.simerr" &
spid=$!
pids="$pids $spid"
timeout 30 "$SOCKRX" --templates "$TEMPLATES" --connect 127.0.0.1:$P --wait-ms 20000 --session --username v1 \
	--password guess 2>"$WORK/$n.rxerr"
rc=$?
[ $rc = 1 ] || { cat "$WORK/$n.rxerr"; fail "$n: toe-sockrx exit $rc, expected 1"; }
wait "$spid"
rc=$?
[ $rc = 1 ] || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim exit $rc, expected 1"; }
has "$WORK/$n.rxerr" "session: logon refused: wrong Password"
has "$WORK/$n.simerr" "refused the peer's logon: wrong Password"
echo "ok: $n ($(($(date +%s) - start)) s)"

# ---- 3. a vendor that stops answering ------------------------------------------
n=silent
P=$((PORT + 3))
timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --records 100 --rate 1000 --listen 127.0.0.1:$P --session \
	--hold-ms 20000 --wait-ms 20000 2>"$WORK/$n.simerr" &
spid=$!
pids="$pids $spid"
# not under timeout(1): the signal must reach toe-sockrx itself (the EXIT trap kills it)
"$SOCKRX" --templates "$TEMPLATES" --connect 127.0.0.1:$P --wait-ms 20000 --session --heartbeat-s 1 \
	2>"$WORK/$n.rxerr" &
rpid=$!
pids="$pids $rpid"
for _ in $(seq 100); do
	grep -q "logged on" "$WORK/$n.rxerr" 2>/dev/null && break
	sleep 0.05
done
has "$WORK/$n.rxerr" "session: logged on"
kill -STOP "$rpid"
wait "$spid"
rc=$?
kill -CONT "$rpid"
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
[ $rc = 1 ] || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim exit $rc, expected 1"; }
has "$WORK/$n.simerr" "heartbeat missed: peer silent for"
has "$WORK/$n.simerr" "heartbeat timeout: peer silent for"
has "$WORK/$n.simerr" "the session ended before the feed did"
echo "ok: $n ($(($(date +%s) - start)) s)"

echo "PASS: 4 runs in $(($(date +%s) - start)) s"
exit 0
