#!/bin/sh
# test_toed_tcp.sh - role = tcp: toed holds the exchange connection itself (general TOE), answers ARP and ping.
#
# Two network namespaces joined by a veth (tests/integration/lib_netns.sh):
#
#   exchange ex0 10.31.0.1/24 <-- veth --> tt0 (no host address): toed, [port] role = tcp, ip 10.31.0.5
#     toe-feedsim --listen (Linux TCP)
#
# 10.31.0.5 belongs to toed alone: the host stack of toed's namespace has no
# address on tt0, so it neither answers nor resets anything; the XDP program
# steers the connection's frames and the ARP and ICMP for 10.31.0.5 to toed.
# Offloads are off on both veth ends (checksums computed in software).
#
# Per source (AF_XDP native copy mode, then AF_PACKET):
#   - toed starts before the exchange listens: its connection attempts are
#     refused (RST from Linux) and retried with backoff;
#   - toe-verify subscribes, toe-feedsim starts listening: toed connects,
#     receives the feed; every record must be exactly the simulator's truth;
#   - ping and arping (when installed) from the exchange get answers from
#     10.31.0.5 (toed's counters show the replies);
#   - toectl stats shows the connection (state, RTT, window, counters) and
#     the source's tx counters; the reconnects after refusals are counted;
#   - open = accept with the feed's own mss = 1024 and window = 64K ([tcp]
#     window = 256K): Linux's ss -ti shows the send MSS and the window scale
#     toed's SYN-ACK offered for that feed, toectl the feed's limits;
#   - a duplicating run: lossy_tc.bpf.o on the exchange's own egress
#     duplicates 3% of its data segments (its drops there are local: Linux's
#     TCP sees them and sends the segment again as if for the first time, so
#     they lose nothing on the wire): toed counts duplicates, every record is
#     exact.
# Then a peer behind a gateway (AF_XDP, AF_PACKET where XDP cannot attach):
# toed's port 10.33.0.5/24 with gateway 10.33.0.254 (a router namespace)
# reaches the exchange at 10.34.0.1: every record exact, ping through the
# router answered. There the loss is real: lossy_tc.bpf.o on the router's
# egress toward toed drops 3% of the data segments (and duplicates 3%) after
# they left the exchange's host, so Linux must retransmit them (its
# RetransSegs counter, the sum of what ss -ti shows per connection, grows),
# helped by toed's SACK blocks; every record is still exact.
#
# Then both directions impaired on that hop (lossy_both_tc.bpf.o on the
# egress of both router interfaces): 2% of the segments dropped, 2%
# duplicated and 2% delayed through a slow HTB class (the pacer scheme in
# lossy_tc.bpf.c) so that later segments overtake them, data toward toed and
# toed's pure ACKs toward the exchange alike. Every record exact; ss -ti
# sampled in the exchange's namespace during the transfer shows Linux's
# retransmissions and never an RTO backoff above TOE_TCP_MAX_BACKOFF (2);
# the transfer ends within 10 s of its paced length (half of it, when longer); both slow classes
# delayed segments and toed saw segments out of order.
# TOE_TCP_BIG=N (unset: not run; make bench runs it with 1000000) adds the
# same both-ways impaired run with N records at TOE_TCP_BIG_RATE/s (50000; its time bound is
# 1.5 times the paced length).
# TOE_TCP_ONLY=gateway runs only the routed part.
#
# TOE_TCP_RECORDS (default 20000) records per run at TOE_TCP_RATE/s (20000).
# Needs root, ip, tc, ethtool, python3; exits 77 (SKIP) without them; the
# AF_XDP run skips alone where XDP cannot be attached. Run it under
# flock /tmp/toed-itest.lock. Takes about 30 s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
RECORDS=${TOE_TCP_RECORDS:-20000}
RATE=${TOE_TCP_RATE:-20000}
TOED=${TOED:-$BUILD/bin/toed}
TOECTL=$BUILD/bin/toectl
FEEDSIM=$BUILD/bin/toe-feedsim
VERIFY=$BUILD/bin/toe-verify
STEER=$BUILD/bpf/toe_steer.bpf.o
LOSSY=$BUILD/bpf/lossy_tc.bpf.o
LOSSY2=$BUILD/bpf/lossy_both_tc.bpf.o
MAX_BACKOFF=${TOE_TCP_MAX_BACKOFF:-2}

script_needs_root
script_needs_tools ip tc ethtool timeout
script_needs_python
script_build "$TOED" "$TOECTL" "$FEEDSIM" "$VERIFY" "$STEER" "$LOSSY" "$LOSSY2"

# shellcheck disable=SC2034 # read by script_cleanup (lib_script.sh)
SCRIPT_KEEP=${TOE_TCP_KEEP:-}
script_workdir toe-tcp
chmod 755 "$WORK"
FAIL_LOG=$WORK/toed.log FAIL_LOG_LINES=30
say() { echo "== $*"; }

NS_EX=toetex$$
NS_MI=toettd$$ # toed's namespace (lib_e2e.sh's name for it)
script_netns netns_add "$NS_EX" "$NS_MI"
script_netns netns_veth "$NS_EX" ex0 "$NS_MI" tt0
ip -n "$NS_EX" addr add 10.31.0.1/24 dev ex0 || fail "cannot address ex0"
script_netns netns_clsact "$NS_EX" ex0
EX_IP=10.31.0.1
TOED_IP=10.31.0.5

. "$here/lib_e2e.sh"

IFACE=tt0 GW=
start_toed() { # TYPE PORT (on $IFACE, address $TOED_IP, gateway $GW, exchange $EX_IP; ACCEPT set: open = accept;
	# FEED_MSS, FEED_WINDOW: the feed's own mss and window)
	_ex=$EX_IP:$2
	[ -n "${ACCEPT:-}" ] && _ex=$EX_IP
	{
		echo "[source]"
		echo "type = $1"
		echo "interface = $IFACE"
		[ "$1" = af_xdp ] && echo "xdp_mode = native"
		cat <<EOF

[port]
role = tcp
ip = $TOED_IP
netmask = 24
${GW:+gateway = $GW}

[feed.sse]
${ACCEPT:+open = accept}
${ACCEPT:+vendor = *:$2}
exchange = $_ex
${FEED_MSS:+mss = $FEED_MSS}
${FEED_WINDOW:+window = $FEED_WINDOW}

[tcp]
connections = 4
window = 256K

[fast]
templates = $TEMPLATES

EOF
		e2e_conf_tail
	} >"$WORK/toed.conf"
	e2e_run_toed "$NS_MI" --bpf-object "$STEER"
}

# Linux's retransmitted segments in the exchange's namespace (what ss -ti shows per connection)
retrans_segs() {
	ip netns exec "$NS_EX" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) k[i] = $i; h = 1 }
		else for (i = 1; i <= NF; i++) if (k[i] == "RetransSegs") print $i }' /proc/net/snmp
}

# feed NAME SEED MODE(exact|dup|lossy): one feed through toed's own connection (to $port);
# dup: lossy_tc on the exchange's egress; lossy: on $LOSSY_NS $LOSSY_DEV's egress (a hop between);
# both: lossy_both_tc on both router interfaces ($LOSSY_DEV toward toed, $LOSSY_DEV2 toward the exchange),
# ss -ti sampled meanwhile. RECORDS and RATE may be overridden per call (the environment of feed).
feed() {
	name=$1 seed=$2 mode=$3
	w=$WORK/$name
	# a big feed: a deeper client ring (a loaded machine delays the reader; its drops would be counted)
	_cap=
	[ "$RECORDS" -gt 100000 ] && _cap="--capacity 262144"
	# shellcheck disable=SC2086
	"$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --expect "$RECORDS" --seed "$seed" --idle-ms 3000 \
		--timeout 120 --label "$name" --ready "$w.ready" $_cap >"$w.out" 2>"$w.err" &
	p_v=$!
	pids="$pids $p_v"
	wait_file "$w.ready" 10 || fail "$name: toe-verify did not subscribe: $(cat "$w.err")"
	[ "$mode" = dup ] && { script_netns netns_impair "$NS_EX" ex0 "$LOSSY"; }
	[ "$mode" = lossy ] && { script_netns netns_impair "$LOSSY_NS" "$LOSSY_DEV" "$LOSSY"; }
	if [ "$mode" = both ]; then
		slow_classes
		script_netns netns_impair "$LOSSY_NS" "$LOSSY_DEV" "$LOSSY2"
		script_netns netns_impair "$LOSSY_NS" "$LOSSY_DEV2" "$LOSSY2"
		"$TOECTL" -s "$SOCK" stats --json >"$w.0.json" || fail "$name: toectl stats --json"
		ss_sample "$w.ss" &
		p_ss=$!
		pids="$pids $p_ss"
	elif [ -n "${SAMPLE:-}" ]; then
		ss_sample "$w.ss" &
		p_ss=$!
		pids="$pids $p_ss"
	fi
	rt0=$(retrans_segs)
	if [ -n "${ACCEPT:-}" ]; then
		fs_open="--connect $TOED_IP:$port"
	else
		fs_open="--listen $EX_IP:$port"
	fi
	# shellcheck disable=SC2086 # fs_open is two words
	ip netns exec "$NS_EX" timeout 120 "$FEEDSIM" --templates "$TEMPLATES" $fs_open \
		--records "$RECORDS" --seed "$seed" --rate "$RATE" --truth "$w.truth" --wait-ms 30000 \
		2>"$w.feedsim.err" &
	p_fs=$!
	pids="$pids $p_fs"
	wait "$p_fs" || fail "$name: toe-feedsim failed: $(cat "$w.feedsim.err")"
	[ "$mode" = dup ] && netns_impair_off "$NS_EX" ex0
	[ "$mode" = lossy ] && netns_impair_off "$LOSSY_NS" "$LOSSY_DEV"
	retrans=$(($(retrans_segs) - rt0))
	if [ "$mode" != both ] && [ -n "${SAMPLE:-}" ]; then
		kill "$p_ss" 2>/dev/null
		wait "$p_ss" 2>/dev/null
	fi
	if [ "$mode" = both ]; then
		kill "$p_ss" 2>/dev/null
		wait "$p_ss" 2>/dev/null
		netns_impair_off "$LOSSY_NS" "$LOSSY_DEV"
		netns_impair_off "$LOSSY_NS" "$LOSSY_DEV2"
	fi
	wait "$p_v"
	rc=$?
	[ $rc -eq 0 ] || { cat "$w.out"; head -n 20 "$w.err"; fail "$name: toe-verify exited $rc"; }
	e2e_verify_exact "$w.out" "$name" "$RECORDS"
	if [ "$mode" = lossy ]; then
		[ "${retrans:-0}" -gt 0 ] || fail "$name: Linux retransmitted nothing (RetransSegs): the loss did not work"
	fi
	# the transfer's length as the client saw it (first record to last): not the connection's
	# setup (toed's reconnect backoff) nor the simulator's wait for the FIN
	[ "$mode" = both ] && check_both "$name" "$w" "$("$PY" -c "print(int(float('$(vget "$w.out" seconds)') * 1000))")"
	say "$name: $RECORDS of $RECORDS records exact through toed's own connection (Linux retransmitted ${retrans:-0})"
}

# ss_sample FILE: ss -tin of the exchange's connection every 50 ms (killed by feed)
ss_sample() {
	while :; do
		ip netns exec "$NS_EX" ss -tinH state established "${SS_FILTER:-( sport = :$port )}" >>"$1" 2>/dev/null
		echo "--" >>"$1"
		sleep 0.05
	done
}

# slow_classes: HTB roots on both router interfaces, class 1:2 the slow one lossy_both_tc delays through.
# Its rate is a quarter of the feed's (about 90 bytes a record) toward toed, so a delayed data segment
# waits for about four segments' time; 512 kbit/s toward the exchange (a 66-byte ACK waits ~1 ms).
slow_classes() {
	[ -n "${SLOW_DONE:-}" ] && return 0
	script_netns netns_slow_class "$LOSSY_NS" "$LOSSY_DEV" $((RATE * 90 * 8 / 4))
	script_netns netns_slow_class "$LOSSY_NS" "$LOSSY_DEV2" 512000
	SLOW_DONE=1
}

# slow_sent DEV: packets class 1:2 sent (pacers included)
slow_sent() { netns_slow_sent "$LOSSY_NS" "$1"; }

# check_both NAME W MS: after a both-ways impaired feed (records already checked)
check_both() {
	_sl=$(awk '/^--$/ { n++ } END { print n + 0 }' "$2.ss")
	[ "$(grep -c 'rto:' "$2.ss")" -gt 0 ] || fail "$1: ss -ti never showed the connection ($_sl samples)"
	_bo=$(grep -o 'backoff:[0-9]*' "$2.ss" | cut -d: -f2 | sort -n | tail -n 1)
	_rto=$(grep -o ' rto:[0-9.]*' "$2.ss" | cut -d: -f2 | sort -n | tail -n 1)
	_rtx=$(grep -o 'retrans:[0-9]*/[0-9]*' "$2.ss" | tail -n 1 | cut -d/ -f2)
	_reord=$(grep -o 'reord_seen:[0-9]*' "$2.ss" | tail -n 1 | cut -d: -f2)
	[ "${_bo:-0}" -le "$MAX_BACKOFF" ] || fail "$1: ss -ti showed RTO backoff ${_bo} (bound $MAX_BACKOFF): a stall"
	[ "${_rtx:-0}" -gt 0 ] || fail "$1: ss -ti shows no retransmission: the loss did not work"
	_paced=$((RECORDS * 1000 / RATE))
	_bound=$((_paced + (_paced / 2 > 10000 ? _paced / 2 : 10000)))
	[ "$3" -le "$_bound" ] || fail "$1: the transfer took $3 ms (bound $_bound)"
	_s1=$(slow_sent "$LOSSY_DEV") _s2=$(slow_sent "$LOSSY_DEV2")
	[ "${_s1:-0}" -gt 0 ] || fail "$1: nothing delayed toward toed (HTB 1:2 on $LOSSY_DEV)"
	[ "${_s2:-0}" -gt 0 ] || fail "$1: no ACK delayed toward the exchange (HTB 1:2 on $LOSSY_DEV2)"
	"$TOECTL" -s "$SOCK" stats --json >"$2.json" || fail "$1: toectl stats --json"
	_c="d['tcp_connections'][0]"
	# the connection's own counters (toectl keeps the last established connection's while toed reconnects)
	[ "$(jget "$2.json" "$_c['ups']")" -gt "$(jget "$2.0.json" "$_c['ups']")" ] || fail "$1: no new connection counted"
	_ooo=$(jget "$2.json" "$_c['out_of_order']")
	_dup=$(jget "$2.json" "$_c['dup_segs']")
	_sck=$(jget "$2.json" "$_c['sacks_out']")
	_dir=$(jget "$2.json" "$_c['direct_segs']")
	[ "$_ooo" -gt 0 ] || fail "$1: toed saw no segment out of order"
	# both ways of delivery ran under the impairment: from the frame, and through the buffer
	[ "$_dir" -gt 0 ] || fail "$1: no segment went to the pipeline from its frame (direct_segs 0)"
	say "$1: both ways impaired: $3 ms (paced $((RECORDS * 1000 / RATE)) ms); ss -ti: retrans $_rtx, max rto ${_rto} ms, max backoff ${_bo:-0}, reord_seen ${_reord:-?} ($_sl samples); HTB slow class sent $_s1 toward toed, $_s2 toward the exchange (pacers included); toed: out_of_order $_ooo, dup_segs $_dup, sacks_out $_sck, direct_segs $_dir"
}

# run TYPE: a daemon on source TYPE; feeds, ping, arping, toectl
run() {
	type=$1
	port=$2
	start_toed "$type" "$port"
	r=$?
	if [ $r = 2 ]; then
		say "SKIP $type: toed could not start here: $(tail -n 3 "$WORK/toed.log")"
		return 0
	fi
	# nobody listens yet: Linux refuses, toed retries
	wait_for "$WORK/toed.log" "connection to $EX_IP:$port .*again in" 10 ||
		fail "$type: no refused connection attempt logged"
	feed "$type-clean" 11 exact
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$type.s1.json" || fail "$type: toectl stats --json"
	"$TOECTL" -s "$SOCK" stats >"$WORK/$type.s1.txt" || fail "$type: toectl stats"
	grep -q 'tcp connection' "$WORK/$type.s1.txt" || fail "$type: toectl stats shows no tcp connection: $(cat "$WORK/$type.s1.txt")"
	c0="d['tcp_connections'][0]"
	[ "$(jget "$WORK/$type.s1.json" "$c0['feed']")" = sse ] || fail "$type: toectl: the connection's feed"
	[ "$(jget "$WORK/$type.s1.json" "$c0['ups']")" -ge 1 ] || fail "$type: toectl: never established"
	[ "$(jget "$WORK/$type.s1.json" "$c0['attempts']")" -ge 2 ] || fail "$type: toectl: no reconnect counted"
	[ "$(jget "$WORK/$type.s1.json" "d['source']['tx_frames']")" -gt 0 ] || fail "$type: no frame sent"
	[ "$(jget "$WORK/$type.s1.json" "d['source']['tx_refused']")" = 0 ] || fail "$type: tx_refused"
	[ "$(jget "$WORK/$type.s1.json" "d['tcp']['bytes_in']")" -gt 0 ] || fail "$type: no bytes in"

	# ping and arping from the exchange
	if command -v ping >/dev/null 2>&1; then
		ip netns exec "$NS_EX" ping -c 3 -i 0.2 -W 2 "$TOED_IP" >"$WORK/$type.ping" 2>&1 ||
			fail "$type: ping $TOED_IP: $(cat "$WORK/$type.ping")"
		grep -q ' 0% packet loss' "$WORK/$type.ping" || fail "$type: ping lost packets: $(cat "$WORK/$type.ping")"
		say "$type: ping $TOED_IP answered ($(grep -o 'rtt.*' "$WORK/$type.ping"))"
	else
		say "$type: ping not installed (mk/deps.sh installs iputils-ping): not tried"
	fi
	if command -v arping >/dev/null 2>&1; then
		ip netns exec "$NS_EX" arping -c 2 -w 3 -I ex0 "$TOED_IP" >"$WORK/$type.arping" 2>&1 ||
			fail "$type: arping $TOED_IP: $(cat "$WORK/$type.arping")"
		grep -qi 'reply\|bytes from' "$WORK/$type.arping" || fail "$type: arping: no reply: $(cat "$WORK/$type.arping")"
		say "$type: arping $TOED_IP answered"
	else
		say "$type: arping not installed (mk/deps.sh installs iputils-arping): not tried"
	fi
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$type.s2.json" || fail "$type: toectl stats --json"
	[ "$(jget "$WORK/$type.s2.json" "d['tcp']['arp_replies']")" -ge 1 ] || fail "$type: no ARP reply counted"
	command -v ping >/dev/null 2>&1 &&
		{ [ "$(jget "$WORK/$type.s2.json" "d['tcp']['icmp_replies']")" -ge 3 ] || fail "$type: ICMP replies not counted"; }

	# duplicated data segments: toed's stream stays exact
	feed "$type-dup" 12 dup
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$type.s3.json" || fail "$type: toectl stats --json"
	dups=$(jget "$WORK/$type.s3.json" "$c0['dup_segs']")
	[ "$dups" -gt 0 ] || fail "$type: no duplicate segment counted"
	say "$type: $dups duplicated segments dropped by toed's TCP"
	e2e_stop_toed
}

# check_feed_limits TYPE SSFILE: the feed's mss = 1024 and window = 64K as Linux (ss -ti of the exchange's
# side) and toectl see them: Linux sends segments of at most 1024 bytes (its send MSS 1024, or 1012 when
# it counts the 12 bytes of timestamps off it), toed's window scale is 1 (the least shift that fits 65536
# in 16 bits; [tcp] window = 256K would be 3) and the window toed advertises reaches 65536 and never more
# (snd_wnd, where ss shows it); toectl shows the feed's limits and the MSS negotiated with Linux's 1460
check_feed_limits() {
	_l=$(grep -m1 'mss:' "$2")
	[ -n "$_l" ] || fail "$1 accept: ss -ti never showed the exchange's connection"
	_mss=$(echo "$_l" | grep -o ' mss:[0-9]*' | cut -d: -f2)
	[ "$_mss" = 1024 ] || [ "$_mss" = 1012 ] ||
		fail "$1 accept: Linux's send MSS is '$_mss', not 1024 (or 1012 with timestamps): the feed's mss = 1024: $_l"
	_ws=$(echo "$_l" | grep -o 'wscale:[0-9]*' | cut -d: -f2)
	[ "$_ws" = 1 ] || fail "$1 accept: toed's window scale as Linux sees it is '$_ws', not 1 (the feed's window = 64K): $_l"
	_wnd=$(grep -o 'snd_wnd:[0-9]*' "$2" | cut -d: -f2 | sort -n | tail -n 1)
	[ -z "$_wnd" ] || [ "$_wnd" = 65536 ] ||
		fail "$1 accept: the most toed advertised (Linux's snd_wnd) is $_wnd, not 65536 (the feed's window = 64K)"
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$1.lim.json" || fail "$1 accept: toectl stats --json"
	_c="d['tcp_connections'][0]"
	[ "$(jget "$WORK/$1.lim.json" "$_c['feed_mss']")" = 1024 ] &&
		[ "$(jget "$WORK/$1.lim.json" "$_c['feed_window']")" = 65536 ] &&
		[ "$(jget "$WORK/$1.lim.json" "$_c['mss']")" = 1024 ] ||
		fail "$1 accept: toectl feed_mss '$(jget "$WORK/$1.lim.json" "$_c['feed_mss']")', feed_window '$(jget "$WORK/$1.lim.json" "$_c['feed_window']")', mss '$(jget "$WORK/$1.lim.json" "$_c['mss']")'"
	say "$1: the feed's mss 1024 and window 64K: Linux's send MSS $_mss, toed's window scale $_ws, most advertised ${_wnd:-(ss shows no snd_wnd)}; toectl feed_mss 1024, feed_window 65536"
}

# the feeds' ports differ per run: the exchange may still hold the previous one's connection in TIME-WAIT
# run_accept TYPE PORT: open = accept: the exchange connects to toed; a peer from another address is reset
run_accept() {
	# the feed's own mss and window, not [tcp]'s (1408, 256K): Linux sees toed's SYN-ACK offer them
	FEED_MSS=1024 FEED_WINDOW=64K ACCEPT=1 start_toed "$1" "$2"
	[ $? = 2 ] && { say "SKIP $1 accept: toed could not start here: $(tail -n 3 "$WORK/toed.log")"; return 0; }
	port=$2
	SAMPLE=1 SS_FILTER="( dport = :$2 )" ACCEPT=1 feed "$1-accept" 17 exact
	check_feed_limits "$1" "$WORK/$1-accept.ss"
	ACCEPT=1 feed "$1-accept-again" 18 exact
	# a connection from an address that is not the feed's exchange never becomes the feed's: the XDP
	# program steers only the feed's frames to toed (the host stack, which has no address here, drops the
	# rest: the SYN times out); were it steered, toed would reset it (accept_refused, test_dp_tcp)
	ip -n "$NS_EX" addr add 10.31.0.2/24 dev ex0 2>/dev/null
	ip netns exec "$NS_EX" "$PY" - "$TOED_IP" "$2" >"$WORK/$1.stranger" 2>&1 <<'PYEOF'
import socket, sys
s = socket.socket()
s.bind(("10.31.0.2", 0))
s.settimeout(3)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("read", len(s.recv(100)))
except (ConnectionResetError, ConnectionRefusedError):
    print("reset")
except (TimeoutError, socket.timeout):
    print("timeout")
PYEOF
	grep -q 'reset\|timeout' "$WORK/$1.stranger" || fail "$1 accept: a stranger's connection was taken: $(cat "$WORK/$1.stranger")"
	ip -n "$NS_EX" addr del 10.31.0.2/24 dev ex0 2>/dev/null
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$1.acc.json" || fail "$1 accept: toectl stats --json"
	c0="d['tcp_connections'][0]"
	[ "$(jget "$WORK/$1.acc.json" "$c0['ups']")" -ge 2 ] || fail "$1 accept: fewer than two connections accepted"
	[ "$(jget "$WORK/$1.acc.json" "$c0['phase']")" = listening ] || fail "$1 accept: not listening again after the close"
	say "$1: open = accept: two feeds accepted from the exchange, exact; a stranger's connection not taken ($(cat "$WORK/$1.stranger"))"
	e2e_stop_toed
}

if [ "${TOE_TCP_ONLY:-}" != gateway ]; then
	run af_xdp 7101
	run af_packet 7201
	run_accept af_xdp 7111
fi

# a peer behind a gateway: toed (10.33.0.5/24, gateway 10.33.0.254) -> router -> exchange 10.34.0.1
NS_GW=toetgw$$
script_netns netns_add "$NS_GW"
script_netns netns_veth "$NS_MI" tg0 "$NS_GW" gw1
script_netns netns_veth "$NS_GW" gw0 "$NS_EX" ex1
ip -n "$NS_GW" addr add 10.33.0.254/24 dev gw1 && ip -n "$NS_GW" addr add 10.34.0.254/24 dev gw0 &&
	ip -n "$NS_EX" addr add 10.34.0.1/24 dev ex1 && ip -n "$NS_EX" route add 10.33.0.0/24 via 10.34.0.254 &&
	ip netns exec "$NS_GW" sysctl -qw net.ipv4.ip_forward=1 || fail "cannot set up the routed path"
script_netns netns_clsact "$NS_GW" gw1
script_netns netns_clsact "$NS_GW" gw0
IFACE=tg0 GW=10.33.0.254 TOED_IP=10.33.0.5 EX_IP=10.34.0.1 LOSSY_NS=$NS_GW LOSSY_DEV=gw1 LOSSY_DEV2=gw0
port=7301
gtype=af_xdp
start_toed af_xdp $port || { gtype=af_packet; start_toed af_packet $port; } || fail "gateway: toed did not start"
feed "gateway-$gtype" 13 exact
ip netns exec "$NS_EX" ping -c 2 -i 0.2 -W 2 "$TOED_IP" >"$WORK/gw.ping" 2>&1 ||
	fail "gateway: ping $TOED_IP through the router: $(cat "$WORK/gw.ping")"
"$TOECTL" -s "$SOCK" stats --json >"$WORK/gw.json" || fail "gateway: toectl stats --json"
# toed asked ARP for its next hop (the gateway: the exchange is off its subnet)
[ "$(jget "$WORK/gw.json" "d['tcp']['arp_requests']")" -ge 1 ] || fail "gateway: no ARP request"
say "gateway: the exchange 10.34.0.1 reached through 10.33.0.254, ping answered through the router"
feed "gateway-$gtype-lossy" 14 lossy
"$TOECTL" -s "$SOCK" stats --json >"$WORK/gw2.json" || fail "gateway: toectl stats --json"
c0="d['tcp_connections'][0]"
say "gateway: lossy hop: toed saw $(jget "$WORK/gw2.json" "$c0['out_of_order']") segments out of order, sent $(jget "$WORK/gw2.json" "$c0['sacks_out']") ACKs with SACK blocks"
feed "gateway-$gtype-both" 15 both
if [ -n "${TOE_TCP_BIG:-}" ]; then
	RECORDS=$TOE_TCP_BIG RATE=${TOE_TCP_BIG_RATE:-50000} SLOW_DONE= feed "gateway-$gtype-both-big" 16 both
fi
e2e_stop_toed
echo "PASS: toed's own TCP connection (role = tcp), ARP and ICMP answers"
exit 0
