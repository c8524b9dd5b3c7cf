#!/bin/sh
# test_toed_session.sh - the STEP session on toed's own connection (role = tcp, dp/dp_sess.c) against
# toe-feedsim --session (the exchange's end), in two network namespaces joined by a veth as in
# test_toed_tcp.sh (exchange ex0 10.31.0.1/24 <-> tt0, toed's port 10.31.0.5, AF_PACKET source):
#
#   0. check:    an unreadable password_file: toed -t exits 78 naming the key and the file;
#   1. session:  CompIDs, Username and a password file: toed logs on (HeartBtInt 1 s), the feed arrives
#                (every record equals the truth except msg_seq, which the session re-stamps: toe-verify
#                --any-msg-seq), the session is held 3 s with heartbeats both ways (feedsim's summary and
#                toectl's heartbeats_out), the exchange logs out ("end of day": toed's log, last_logout);
#   2. shutdown: a held session, toed stopped (SIGTERM): the exchange sees toed's Logout ("shutdown");
#   3. refused:  a wrong password: each logon is refused ("wrong Password" in toed's log, logon_refusals in
#                toectl), toed closes and logs on again later with a growing backoff; the file corrected: still
#                refused (the data plane reads no file), then toectl reload: the next logon is accepted;
#   4. silent:   the exchange's process is stopped (SIGSTOP) after the logon: toed sends a TestRequest, gives
#                up, closes, resets the connection when the exchange never closes its side, and reconnects.
# In each run a client sees the session's events as TOE_REC_SESSION records, in order: runs 1-2 tick_client
# subscribed to the feed's stream (logon sent, logged on, the exchange's Logout with its reason, the
# disconnect, the reconnect, toed's own Logout), run 3 toe-dump by type (the refusals with their reason,
# reconnects with growing waits), run 4 tick_client by type (heartbeat missed, heartbeat timeout, disconnect).
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
DUMP=$BUILD/bin/toe-dump
TICK=$BUILD/itest/tick_client
STEER=$BUILD/bpf/toe_steer.bpf.o

script_needs_root
script_needs_tools ip timeout pgrep
script_needs_python
for f in "$TOED" "$TOECTL" "$FEEDSIM" "$VERIFY" "$DUMP" "$TICK" "$STEER"; do
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

write_conf() { # PASSWORD_FILE
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
}
start_toed() { # PASSWORD_FILE
	write_conf "$1"
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
# sess_client NAME EXTRA...: tick_client reading the session records (--brief lines "S event group line
# stream next_in next_out arg1 arg2 flags text") into NAME.sess until toed goes away (pid p_sc)
sess_client() {
	_n=$1
	shift
	"$TICK" --socket "$SOCK" --types session --brief --until-gone --timeout 120 --ready "$WORK/$_n.sready" \
		-o "$WORK/$_n.sess" "$@" 2>"$WORK/$_n.serr" &
	p_sc=$!
	pids="$pids $p_sc"
	for _ in $(seq 200); do
		[ -e "$WORK/$_n.sready" ] && break
		sleep 0.05
	done
	[ -e "$WORK/$_n.sready" ] || fail "$_n: tick_client did not subscribe: $(cat "$WORK/$_n.serr")"
}
# sess_events FILE: the event names of its S lines, space-separated
sess_events() { awk '$1 == "S" { printf "%s ", $2 }' "$1"; }
sess_spaced() { awk '$1 == "S" { printf " %s ", $2 }' "$1"; } # each name between its own spaces
# sess_expect FILE EVENT...: these events appear in FILE in this order (others may come between)
sess_expect() {
	_f=$1
	shift
	_pat=""
	for _e in "$@"; do _pat="$_pat.* $_e "; done
	sess_spaced "$_f" | grep -q -- "$_pat" ||
		{ cat "$_f"; fail "$_f: expected the session events $* in order, got: $(sess_events "$_f")"; }
}
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

# ---- 0. an unreadable password file is a configuration error (exit 78), naming the key and the file ----
write_conf "$WORK/missing.pw"
"$TOED" -t -c "$WORK/toed.conf" >"$WORK/check.out" 2>&1
rc=$?
[ $rc = 78 ] || { cat "$WORK/check.out"; fail "toed -t with a missing password file exited $rc, not 78"; }
has "$WORK/check.out" "[feed.sse] password_file = $WORK/missing.pw: No such file or directory"

# ---- 1. a whole session -------------------------------------------------------------
n=session
start_toed "$WORK/pw"
sess_client events --stream sse
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
wait "$p_sc" || fail "tick_client (session records) failed: $(cat "$WORK/events.serr")"
# runs 1 and 2 as the feed's client saw them: S event group line stream next_in next_out arg1 arg2 flags text
sess_expect "$WORK/events.sess" logon_sent logged_on peer_logout disconnected reconnecting logon_sent logged_on \
	logout_sent
awk '$2 == "logged_on" && $8 == 1 && $11 == "SSE" { ok = 1 } END { exit !ok }' "$WORK/events.sess" ||
	fail "events: no logged_on record with HeartBtInt 1 and the exchange's CompID SSE: $(cat "$WORK/events.sess")"
grep -q '^S peer_logout .* 0 end of day$' "$WORK/events.sess" ||
	fail "events: the exchange's Logout reason did not reach the client: $(cat "$WORK/events.sess")"
grep -q '^S logout_sent .* 0 shutdown$' "$WORK/events.sess" ||
	fail "events: toed's Logout (shutdown) did not reach the client: $(cat "$WORK/events.sess")"
awk '$2 == "logged_on" && $6 < 2 { bad = 1 } END { exit bad }' "$WORK/events.sess" ||
	fail "events: a logged_on record without the next MsgSeqNum expected: $(cat "$WORK/events.sess")"
say "$n: toed logged out at SIGTERM, the exchange saw it"
say "events: the feed's client saw $(sess_events "$WORK/events.sess")"

# ---- 3. a wrong password --------------------------------------------------------------
n=refused
start_toed "$WORK/badpw"
"$DUMP" --socket "$SOCK" --types session --no-reconnect --timeout 90 >"$WORK/$n.dump" 2>"$WORK/$n.dumperr" &
p_d=$!
pids="$pids $p_d"
wait_for "$WORK/$n.dumperr" "toe-dump: subscribed" 10 || fail "$n: toe-dump did not subscribe: $(cat "$WORK/$n.dumperr")"
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
# the right password into the file: nothing changes until a reload, at which the control plane reads it and
# hands it to the data plane (which reads no file); then the next logon is accepted
printf 's3cret\n' >"$WORK/badpw"
feedsim $n.4 --records 100
wait "$p_fs"
has "$WORK/$n.4.simerr" "refused the peer's logon: wrong Password"
"$TOECTL" -s "$SOCK" reload >"$WORK/$n.reload" 2>&1 || { cat "$WORK/$n.reload"; fail "$n: toectl reload"; }
feedsim $n.ok --records 100
wait "$p_fs"
has "$WORK/$n.ok.simerr" "session: logged on with VENDOR1"
wait_for "$WORK/toed.log" "session: logged on with SSE" 5 || fail "$n: toed did not log on with the reloaded password"
say "$n: the password file corrected and reloaded: logged on"
e2e_stop_toed
wait "$p_d" # 1: the daemon went away (--no-reconnect)
has "$WORK/$n.dump" "# daemon gone"
# toe-dump by type: every refusal with the exchange's reason, each followed by the disconnect and a reconnect
grep -c 'SESSION .*event=logon_refused .*text="wrong Password"' "$WORK/$n.dump" | grep -qx 4 || {
	cat "$WORK/$n.dump" "$WORK/$n.dumperr"
	fail "$n: toe-dump did not show the refusals as session records"
}
grep -q 'SESSION .*event=reconnecting ' "$WORK/$n.dump" || fail "$n: toe-dump showed no reconnect: $(cat "$WORK/$n.dump")"
sed -n 's/.*event=reconnecting .*arg2=\([0-9]*\) .*/\1/p' "$WORK/$n.dump" >"$WORK/$n.dwaits"
[ "$(tail -n 1 "$WORK/$n.dwaits")" -gt 100 ] || fail "$n: the reconnect records' waits did not grow: $(cat "$WORK/$n.dwaits")"
say "$n: toe-dump saw the refusals and reconnects (waits $(tr '\n' ' ' <"$WORK/$n.dwaits")ms)"

# ---- 4. an exchange that hangs ----------------------------------------------------------
n=silent
start_toed "$WORK/pw"
sess_client $n
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
wait "$p_sc" || fail "$n: tick_client (session records) failed: $(cat "$WORK/$n.serr")"
sess_expect "$WORK/$n.sess" logon_sent logged_on heartbeat_missed heartbeat_timeout disconnected
awk '$2 == "heartbeat_missed" && $8 >= 2000 { ok = 1 } END { exit !ok }' "$WORK/$n.sess" ||
	fail "$n: the heartbeat_missed record does not say how long the exchange was silent: $(cat "$WORK/$n.sess")"
say "$n: the client saw $(sess_events "$WORK/$n.sess")"

echo "PASS: the STEP session on toed's own connection"
exit 0
