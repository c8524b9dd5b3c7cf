#!/bin/sh
# test_toed_session.sh - the STEP session on toed's own connection (role = tcp, dp/dp_sess.c) against
# toe-feedsim --session (the exchange's end), in two network namespaces joined by a veth as in
# test_toed_tcp.sh (exchange ex0 10.31.0.1/24 <-> tt0, toed's port 10.31.0.5, AF_PACKET source):
#
#   1. session:  CompIDs, Username and a password file: toed logs on (HeartBtInt 1 s), the feed arrives
#                (every record equals the truth except msg_seq, which the session re-stamps: toe-verify
#                --any-msg-seq), the session is held 3 s with heartbeats both ways (feedsim's summary and
#                toectl's heartbeats_out), the exchange logs out ("end of day": toed's log, last_logout);
#   2. shutdown: a held session, toed stopped (SIGTERM): the exchange sees toed's Logout ("shutdown");
#   3. refused:  a wrong password: each logon is refused ("wrong Password" in toed's log, logon_refusals in
#                toectl), toed closes and logs on again later with a growing backoff;
#   4. silent:   the exchange's process is stopped (SIGSTOP) after the logon: toed sends a TestRequest, gives
#                up, closes, resets the connection when the exchange never closes its side, and reconnects.
# Needs root, ip, python3; exits 77 (SKIP) without them. Run it under flock /tmp/toed-itest.lock.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
RECORDS=5000
TOED=${TOED:-$BUILD/bin/toed}
TOECTL=$BUILD/bin/toectl
FEEDSIM=$BUILD/bin/toe-feedsim
VERIFY=$BUILD/bin/toe-verify
STEER=$BUILD/bpf/toe_steer.bpf.o

script_needs_root
script_needs_tools ip timeout pgrep
script_needs_python
for f in "$TOED" "$TOECTL" "$FEEDSIM" "$VERIFY" "$STEER"; do
	[ -e "$f" ] || make -s BUILD="$BUILD" "$f" >/dev/null 2>&1 || skip "cannot build: $f"
done

script_workdir toe-sess
chmod 755 "$WORK"

fail() {
	echo "FAIL: $*"
	if [ -f "$WORK/toed.log" ]; then
		echo "--- toed log (last 30 lines):"
		tail -n 30 "$WORK/toed.log"
	fi
	if [ -n "${TOED_PID:-}" ] && "$TOECTL" -s "$SOCK" stats --json >"$WORK/fail.json" 2>/dev/null; then
		echo "--- toectl stats: tcp_connections[0], gtoe:"
		jget "$WORK/fail.json" "d['tcp_connections'][0]"
		jget "$WORK/fail.json" "d.get('gtoe')"
	fi
	exit 1
}
say() { echo "== $*"; }
has() { # file text
	grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 does not say: $2"; }
}

NS_EX=toesex$$
NS_MI=toesmi$$
script_netns netns_add "$NS_EX" "$NS_MI"
script_netns netns_veth "$NS_EX" ex0 "$NS_MI" tt0
ip -n "$NS_EX" addr add 10.31.0.1/24 dev ex0 || fail "cannot address ex0"
EX_IP=10.31.0.1
TOED_IP=10.31.0.5
PORT=$((20000 + $$ % 20000))

. "$here/lib_e2e.sh"

printf 's3cret\n' >"$WORK/pw"
printf 'guess\n' >"$WORK/badpw"
chmod 600 "$WORK/pw" "$WORK/badpw"

start_toed() { # PASSWORD_FILE
	cat >"$WORK/toed.conf" <<EOF
[source]
type = af_packet
interface = tt0

[port]
role = tcp
ip = $TOED_IP
netmask = 24

[feed.sse]
exchange = $EX_IP:$PORT
sender_comp_id = VENDOR1
target_comp_id = SSE
heartbeat_s = 1
username = v1
password_file = $1

[tcp]
connections = 4
window = 256K

[fast]
templates = $TEMPLATES

[shm]
hugepages = off
socket = $SOCK

[log]
target = stderr
level = info
EOF
	: >"$WORK/toed.log"
	ip netns exec "$NS_MI" "$TOED" -c "$WORK/toed.conf" --foreground --bpf-object "$STEER" \
		>>"$WORK/toed.log" 2>&1 &
	TOED_PID=$!
	wait_for "$WORK/toed.log" 'notice: ready' 15 || fail "toed did not become ready"
}

# feedsim NAME EXTRA...: the exchange's session server on $EX_IP:$PORT, in the background (pid p_fs)
feedsim() {
	_n=$1
	shift
	ip netns exec "$NS_EX" timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --listen "$EX_IP:$PORT" --session \
		--sender-comp-id SSE --target-comp-id VENDOR1 --username v1 --password-file "$WORK/pw" \
		--wait-ms 20000 "$@" 2>"$WORK/$_n.simerr" &
	p_fs=$!
	pids="$pids $p_fs"
}
c0="d['tcp_connections'][0]"
# stats_until FILE PYTHON-CONDITION: toectl stats --json into FILE until the condition holds (3 s at most:
# the data plane publishes its snapshot periodically)
stats_until() {
	for _ in $(seq 60); do
		"$TOECTL" -s "$SOCK" stats --json >"$1" || fail "toectl stats --json"
		[ "$(jget "$1" "$2")" = True ] && return 0
		sleep 0.05
	done
	return 0
}

# ---- 1. a whole session -------------------------------------------------------------
n=session
start_toed "$WORK/pw"
"$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --expect $RECORDS --seed 21 --idle-ms 6000 --timeout 60 \
	--any-msg-seq --label $n --ready "$WORK/$n.ready" >"$WORK/$n.out" 2>"$WORK/$n.err" &
p_v=$!
pids="$pids $p_v"
for _ in $(seq 200); do
	[ -e "$WORK/$n.ready" ] && break
	sleep 0.05
done
[ -e "$WORK/$n.ready" ] || fail "$n: toe-verify did not subscribe: $(cat "$WORK/$n.err")"
feedsim $n --records $RECORDS --seed 21 --rate 5000 --hold-ms 3000 --logout "end of day" --truth "$WORK/$n.truth"
wait "$p_fs" || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim failed"; }
wait "$p_v"
rc=$?
[ $rc = 0 ] || { cat "$WORK/$n.out"; head -n 20 "$WORK/$n.err"; fail "$n: toe-verify exited $rc"; }
for k in wrong out_of_order not_in_truth unexplained dropped gaps; do
	[ "$(vget "$WORK/$n.out" $k)" = 0 ] || fail "$n: $k = $(vget "$WORK/$n.out" $k): $(cat "$WORK/$n.out")"
done
[ "$(vget "$WORK/$n.out" matched)" = $RECORDS ] || fail "$n: matched $(vget "$WORK/$n.out" matched) of $RECORDS"
has "$WORK/$n.simerr" "session: logged on with VENDOR1, HeartBtInt 1 s"
wait_for "$WORK/toed.log" "feed sse: session: peer logged out: end of day" 5 ||
	fail "$n: toed did not log the exchange's Logout"
has "$WORK/toed.log" "feed sse: session: logged on with SSE, HeartBtInt 1 s"
stats_until "$WORK/$n.json" "$c0['last_logout'] == 'end of day'"
[ "$(jget "$WORK/$n.json" "$c0['logons']")" = 1 ] || fail "$n: toectl logons: $(jget "$WORK/$n.json" "$c0")"
[ "$(jget "$WORK/$n.json" "$c0['last_logout']")" = "end of day" ] || fail "$n: toectl last_logout: $(jget "$WORK/$n.json" "$c0")"
[ "$(jget "$WORK/$n.json" "$c0['logon_refusals']")" = 0 ] || fail "$n: toectl logon_refusals"
hb_toed=$(jget "$WORK/$n.json" "$c0['heartbeats_out']")
hb_sim=$(sed -n 's/.*session: \([0-9]*\) heartbeats and.*/\1/p' "$WORK/$n.simerr")
[ "${hb_toed:-0}" -ge 2 ] && [ "${hb_sim:-0}" -ge 2 ] || {
	cat "$WORK/$n.simerr"
	fail "$n: expected heartbeats both ways while held: $hb_sim from the exchange, $hb_toed from toed"
}
say "$n: $RECORDS records exact (msg_seq aside), heartbeats $hb_sim from the exchange / $hb_toed from toed, Logout"

# ---- 2. toed's Logout at shutdown ------------------------------------------------------
n=shutdown
feedsim $n --records 100 --rate 1000 --hold-ms 20000
_before=$(grep -c "session: logged on" "$WORK/toed.log")
for _ in $(seq 200); do
	[ "$(grep -c "session: logged on" "$WORK/toed.log")" -gt "$_before" ] && break
	sleep 0.05
done
[ "$(grep -c "session: logged on" "$WORK/toed.log")" -gt "$_before" ] || fail "$n: toed did not log on again"
sleep 0.5
e2e_stop_toed
wait "$p_fs"
has "$WORK/$n.simerr" "session: peer logged out: shutdown"
has "$WORK/toed.log" "feed sse: session: logged out"
say "$n: toed logged out at SIGTERM, the exchange saw it"

# ---- 3. a wrong password --------------------------------------------------------------
n=refused
start_toed "$WORK/badpw"
for k in 1 2 3; do
	feedsim $n.$k --records 100
	wait "$p_fs"
	has "$WORK/$n.$k.simerr" "refused the peer's logon: wrong Password"
done
wait_for "$WORK/toed.log" "session: logon refused: wrong Password" 5 || fail "$n: toed did not log the refusal"
stats_until "$WORK/$n.json" "$c0['logon_refusals'] >= 3"
[ "$(jget "$WORK/$n.json" "$c0['logon_refusals']")" = 3 ] ||
	fail "$n: toectl logon_refusals $(jget "$WORK/$n.json" "$c0['logon_refusals']"), expected 3"
[ "$(jget "$WORK/$n.json" "$c0['logons']")" = 0 ] || fail "$n: toectl logons"
[ "$(jget "$WORK/$n.json" "$c0['last_logout']")" = "wrong Password" ] || fail "$n: toectl last_logout"
[ "$(jget "$WORK/$n.json" "$c0['session_closes']")" -ge 3 ] || fail "$n: toectl session_closes"
# each refused connection ends with a backoff at least as long as the one before (never back to 100 ms
# right after a refusal, as after a connection that was logged on)
grep -A3 "logon refused" "$WORK/toed.log" | sed -n 's/.*; again in \([0-9]*\) ms.*/\1/p' >"$WORK/$n.waits"
[ "$(wc -l <"$WORK/$n.waits")" -ge 2 ] || fail "$n: no reconnect logged after the refusals"
[ "$(tail -n 1 "$WORK/$n.waits")" -gt 100 ] || fail "$n: the backoff did not grow: $(tr '\n' ' ' <"$WORK/$n.waits")"
say "$n: 3 logons refused (wrong Password), toed retried with backoffs $(tr '\n' ' ' <"$WORK/$n.waits")ms"
e2e_stop_toed

# ---- 4. an exchange that hangs ----------------------------------------------------------
n=silent
start_toed "$WORK/pw"
feedsim $n --records 100 --rate 1000 --hold-ms 30000
wait_for "$WORK/toed.log" "session: logged on" 15 || fail "$n: toed did not log on"
sim=$(pgrep -P "$p_fs" -x toe-feedsim)
[ -n "$sim" ] || fail "$n: no toe-feedsim process under $p_fs"
kill -STOP "$sim"
wait_for "$WORK/toed.log" "session: heartbeat missed" 10 || fail "$n: toed sent no TestRequest"
wait_for "$WORK/toed.log" "session: heartbeat timeout" 10 || fail "$n: toed did not give up"
wait_for "$WORK/toed.log" "did not close its side within 2000 ms: reset" 10 || fail "$n: toed did not reset"
wait_for "$WORK/toed.log" "connection to $EX_IP:$PORT closed; again in" 10 || fail "$n: no reconnect scheduled"
stats_until "$WORK/$n.json" "$c0['heartbeat_timeouts'] >= 1"
[ "$(jget "$WORK/$n.json" "$c0['heartbeats_missed']")" -ge 1 ] || fail "$n: toectl heartbeats_missed"
[ "$(jget "$WORK/$n.json" "$c0['test_requests_out']")" -ge 1 ] || fail "$n: toectl test_requests_out"
[ "$(jget "$WORK/$n.json" "$c0['heartbeat_timeouts']")" -ge 1 ] || fail "$n: toectl heartbeat_timeouts"
[ "$(jget "$WORK/$n.json" "$c0['session_closes']")" = 1 ] ||
	fail "$n: toectl session_closes $(jget "$WORK/$n.json" "$c0['session_closes']"), expected 1"
kill -CONT "$sim"
kill "$sim" 2>/dev/null
wait "$p_fs" 2>/dev/null
say "$n: a hung exchange: TestRequest, given up, reset, reconnect scheduled"
e2e_stop_toed

echo "PASS: the STEP session on toed's own connection"
exit 0
