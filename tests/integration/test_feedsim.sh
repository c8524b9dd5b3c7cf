#!/bin/sh
# test_feedsim.sh - the exchange simulator (toe-feedsim) against the Linux socket baseline (toe-sockrx).
#
# Two network namespaces (names unique to this process, removed on exit):
#
#   exchange ex0 10.77.0.1 <-- veth --> ve0 10.77.0.2 vendor
#
# TSO/GSO/GRO off on both ends, as on every test veth of the project. Runs:
#   1. tcp-paced:  feedsim --listen, 100k records at 50k records/s; sockrx --connect;
#   2. tcp-fast:   sockrx --listen; feedsim --connect, 100k records as fast as possible
#                  through a 1 MiB encode-ahead queue (it wraps and refills many times);
#   3. tcp-burst:  bursts of 16 messages (up to 8 records each), sockrx busy-polling;
#   4. udp-paced:  one STEP message per datagram, 100k records at 50k records/s.
# Each run checks that what sockrx decoded is byte for byte feedsim's --truth
# (every record, in order, nothing else), and the paced runs check the send
# log (MsgSeqNum 1..M, each message's first BizIndex and record count as in the truth) and that the feed
# did not go faster than asked. Run 1 also checks that feedsim's truth is
# toe-fastgen's for the same options (the feed is the project's deterministic
# feed). Latency figures (send -> recv, same host, CLOCK_REALTIME) are printed
# for orientation only: these machines are shared and noisy. Usage errors
# exit 2, runtime errors 1. Needs root and ip netns; exits 77 (SKIP) without.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=conf/templates/sse-l2-3201-5801.xml
FEEDSIM=$BUILD/bin/toe-feedsim
SOCKRX=$BUILD/bin/toe-sockrx
FASTGEN=$BUILD/bin/toe-fastgen

script_needs_root
script_needs_tools ip timeout cmp
script_needs_built "$FEEDSIM" "$SOCKRX" "$FASTGEN"

P=toefs$$
NS_EX=${P}ex
NS_VE=${P}ve
script_workdir toe-feedsim

# ---- usage and runtime errors (no network needed) ---------------------------
expect_rc() { # rc command...
	want=$1
	shift
	"$@" >"$WORK/rc.out" 2>&1
	got=$?
	[ "$got" = "$want" ] || { cat "$WORK/rc.out"; fail "exit $got, expected $want: $*"; }
}
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES"
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES" --udp 127.0.0.1:9 --rate 10 --fast
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES" --udp 127.0.0.1:0
expect_rc 2 "$FEEDSIM" --templates "$TEMPLATES" --udp 127.0.0.1:9 --per-msg 0
expect_rc 2 "$FEEDSIM" --udp 127.0.0.1:9
expect_rc 2 "$SOCKRX" --listen 127.0.0.1:9
expect_rc 2 "$SOCKRX" --templates "$TEMPLATES" --listen 127.0.0.1:9 --udp 127.0.0.1:9
expect_rc 1 "$FEEDSIM" --templates /nonexistent.xml --udp 127.0.0.1:9
expect_rc 1 "$SOCKRX" --templates /nonexistent.xml --udp 127.0.0.1:9

# ---- namespaces and the link (tests/integration/lib_netns.sh) -------------
script_netns netns_add "$NS_EX" "$NS_VE"
script_netns netns_veth "$NS_EX" ex0 "$NS_VE" ve0
ip -n "$NS_EX" addr add 10.77.0.1/24 dev ex0
ip -n "$NS_VE" addr add 10.77.0.2/24 dev ve0
ex() { ip netns exec "$NS_EX" "$@"; }
ve() { ip netns exec "$NS_VE" "$@"; }

# a connect to a port nobody listens on fails (exit 1), at once with --wait-ms 0
expect_rc 1 ex timeout 20 "$FEEDSIM" --templates "$TEMPLATES" --records 10 --connect 10.77.0.2:9299 --wait-ms 0

# ---- checks ----------------------------------------------------------------
# same NAME: sockrx's records are feedsim's truth, byte for byte
same() {
	name=$1
	[ -s "$WORK/$name.truth" ] || fail "$name: feedsim wrote no truth"
	if ! cmp -s "$WORK/$name.truth" "$WORK/$name.rx"; then
		diff "$WORK/$name.truth" "$WORK/$name.rx" | head -n 10
		fail "$name: toe-sockrx decoded other records than toe-feedsim sent ($(grep -c . "$WORK/$name.rx") of \
$(grep -c . "$WORK/$name.truth") lines)"
	fi
}

# sendlog NAME RECORDS: the send log is complete and consistent with the truth
sendlog() {
	name=$1 nrec=$2
	[ -x "$PY" ] || { echo "$name: (no python3: send log not checked)"; return; }
	msgs=$(grep -o '"msg_seq":[0-9]*' "$WORK/$name.truth" | uniq | wc -l)
	"$PY" - "$WORK/$name.sendlog" "$nrec" "$msgs" "$WORK/$name.truth" <<'EOF' || fail "$name: bad send log"
import json, struct, sys
data = open(sys.argv[1], "rb").read()
nrec, nmsg = int(sys.argv[2]), int(sys.argv[3])
# per message of the truth: its first record's BizIndex (per channel, as SSE numbers it) and its record count
first_of, count_of = {}, {}
for t in map(json.loads, open(sys.argv[4])):
    first_of.setdefault(t["msg_seq"], t["BizIndex"])
    count_of[t["msg_seq"]] = count_of.get(t["msg_seq"], 0) + 1
assert data[:8] == b"TOESLOG1", "magic"
assert (len(data) - 8) % 32 == 0, "partial entry"
ents = list(struct.iter_unpack("<QQQII", data[8:]))
assert len(ents) == nmsg, "%d entries for %d messages" % (len(ents), nmsg)
total, prev = 0, 0
for i, (seq, t, first, n, ln) in enumerate(ents):
    assert seq == i + 1, "msg_seq %d at %d" % (seq, i)
    assert first == first_of.get(seq), "message %d: first BizIndex %d, the truth says %s" % (seq, first, first_of.get(seq))
    assert n == count_of.get(seq), "message %d: %d records, the truth has %s" % (seq, n, count_of.get(seq))
    assert 1 <= n and 60 < ln <= 32768, "message %d: %d records, %d bytes" % (seq, n, ln)
    assert t >= prev, "send times go back at message %d" % seq
    total, prev = total + n, t
assert total == nrec, "%d records in the log" % total
EOF
}

# latency NAME: one latency line per message received, and the figures
latency() {
	name=$1
	msgs=$(grep -o '"msg_seq":[0-9]*' "$WORK/$name.truth" | uniq | wc -l)
	lines=$(grep -c '"lat_ns":' "$WORK/$name.lat")
	[ "$lines" = "$msgs" ] || fail "$name: $lines latency lines for $msgs messages"
	grep -q "one-way latency: n $msgs " "$WORK/$name.rxerr" || {
		cat "$WORK/$name.rxerr"
		fail "$name: no latency summary over $msgs messages"
	}
	echo "$name: $(sed -n 's/^toe-sockrx: //p' "$WORK/$name.rxerr" | grep 'one-way latency')"
}

# not_faster NAME RECORDS RATE LAST: the paced feed took at least the schedule's
# time: the last burst is due after all records but its own (at most LAST)
not_faster() {
	name=$1 nrec=$2 rate=$3 last=$4
	secs=$(sed -n 's/.* bytes in \([0-9.]*\) s:.*/\1/p' "$WORK/$name.simerr")
	[ -n "$secs" ] || { cat "$WORK/$name.simerr"; fail "$name: no feedsim summary"; }
	awk -v s="$secs" -v n="$nrec" -v r="$rate" -v l="$last" 'BEGIN { exit !(s >= (n - l) / r - 0.001) }' ||
		fail "$name: $nrec records at $rate records/s took only $secs s"
	echo "$name: $(sed -n 's/^toe-feedsim: //p' "$WORK/$name.simerr" | head -n 1)"
}

wait_udp_bound() { # port
	for _ in $(seq 200); do
		ve ss -Huln 2>/dev/null | grep -q ":$1 " && return 0
		sleep 0.02
	done
	fail "toe-sockrx did not bind UDP port $1"
}

start=$(date +%s)

# ---- 1. TCP, paced, the exchange listens -------------------------------------
n=tcp-paced
ex timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --records 100000 --seed 11 --rate 50000 --listen 10.77.0.1:9201 \
	--truth "$WORK/$n.truth" --sendlog "$WORK/$n.sendlog" --cpu 0 2>"$WORK/$n.simerr" &
spid=$!
pids="$pids $spid"
ve timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect 10.77.0.1:9201 --cpu 1 --out "$WORK/$n.rx" \
	--sendlog "$WORK/$n.sendlog" --latency-out "$WORK/$n.lat" 2>"$WORK/$n.rxerr" ||
	{ cat "$WORK/$n.rxerr"; fail "$n: toe-sockrx failed"; }
wait "$spid" || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim failed"; }
same $n
sendlog $n 100000
not_faster $n 100000 50000 4
latency $n
"$FASTGEN" --templates "$TEMPLATES" --records 100000 --seed 11 --truth "$WORK/fastgen.truth" -o "$WORK/fastgen.step" ||
	fail "toe-fastgen"
cmp -s "$WORK/fastgen.truth" "$WORK/$n.truth" || fail "$n: feedsim's feed is not toe-fastgen's for the same seed"

# ---- 2. TCP, as fast as possible, the vendor listens -------------------------
n=tcp-fast
ve timeout 60 "$SOCKRX" --templates "$TEMPLATES" --listen 10.77.0.2:9202 --cpu 1 --out "$WORK/$n.rx" \
	2>"$WORK/$n.rxerr" &
rpid=$!
pids="$pids $rpid"
ex timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --records 100000 --seed 12 --fast --ahead-mb 1 \
	--connect 10.77.0.2:9202 \
	--truth "$WORK/$n.truth" --cpu 0 2>"$WORK/$n.simerr" || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim failed"; }
wait "$rpid" || { cat "$WORK/$n.rxerr"; fail "$n: toe-sockrx failed"; }
same $n
echo "$n: $(sed -n 's/^toe-feedsim: //p' "$WORK/$n.simerr" | head -n 1)"

# ---- 3. TCP, bursts, busy-polled receiver ------------------------------------
n=tcp-burst
ex timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --records 50000 --seed 13 --rate 50000 --burst 16 --per-msg 8 \
	--listen 10.77.0.1:9203 --truth "$WORK/$n.truth" --sendlog "$WORK/$n.sendlog" --cpu 0 2>"$WORK/$n.simerr" &
spid=$!
pids="$pids $spid"
ve timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect 10.77.0.1:9203 --busy-poll --cpu 1 --out "$WORK/$n.rx" \
	--sendlog "$WORK/$n.sendlog" --latency-out "$WORK/$n.lat" 2>"$WORK/$n.rxerr" ||
	{ cat "$WORK/$n.rxerr"; fail "$n: toe-sockrx failed"; }
wait "$spid" || { cat "$WORK/$n.simerr"; fail "$n: toe-feedsim failed"; }
same $n
sendlog $n 50000
not_faster $n 50000 50000 128
latency $n

# ---- 4. UDP, paced -------------------------------------------------------------
n=udp-paced
ve timeout 60 "$SOCKRX" --templates "$TEMPLATES" --udp 10.77.0.2:9204 --records 100000 --idle-ms 3000 --cpu 1 \
	--out "$WORK/$n.rx" --sendlog "$WORK/$n.sendlog" --latency-out "$WORK/$n.lat" 2>"$WORK/$n.rxerr" &
rpid=$!
pids="$pids $rpid"
wait_udp_bound 9204
ex timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --records 100000 --seed 14 --rate 50000 --udp 10.77.0.2:9204 \
	--truth "$WORK/$n.truth" --sendlog "$WORK/$n.sendlog" --cpu 0 2>"$WORK/$n.simerr" ||
	{ cat "$WORK/$n.simerr"; fail "$n: toe-feedsim failed"; }
wait "$rpid" || { cat "$WORK/$n.rxerr"; fail "$n: toe-sockrx failed"; }
same $n
sendlog $n 100000
not_faster $n 100000 50000 4
latency $n

echo "PASS: 4 runs in $(($(date +%s) - start)) s"
exit 0
