#!/bin/sh
# test_mirror_tail.sh - a lost tail on the mirror leg: the vendor's ACKs name it, toe-pcapdump reports it.
#
# The topology of test_mirror_traffic.sh (tests/integration/lib_netns.sh):
#
#   exchange ex0 10.10.1.1 <-- veth --> ve0 10.10.1.2 vendor
#                                       ve0 ingress+egress mirrored to vm0 <-- veth --> vm1 (tcpdump)
#
# The exchange (mirror_peer.py serve ... TAIL) sends a toe-fastgen feed over real Linux TCP; the
# last TAIL bytes and its FIN go out with IP TOS 0x28 once every earlier byte is acknowledged.
# lossy_tc.bpf.c in tail mode on vm0's egress drops exactly those segments on the mirror leg: the
# vendor receives everything (checked), the mirror sees the head of the stream and every one of
# the vendor's ACKs (of the FIN too) and its FIN, never the tail or the exchange's FIN.
# toe-pcapdump must report one gap, reason "acked", naming exactly [len - TAIL, len): no byte
# lost without a gap, none too many; the records outside it must be exact (mirror_check.py
# lossy); the stream must close on the evidence (the FIN inferred from the vendor's ACK).
# Needs root, ip netns, tc (u32, mirred, bpf), ethtool, tcpdump, clang and libbpf-dev headers,
# /usr/bin/python3; exits 77 (SKIP) without them. Run it under flock /tmp/toed-itest.lock.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=conf/templates/sse-l2-3201-5801.xml
PORT=9011
TAIL=20000

script_needs_root
script_needs_tools ip tc ethtool tcpdump clang gcc timeout
script_needs_python
script_needs_bpf_headers
script_needs_built "$BUILD/bin/toe-fastgen" "$BUILD/bin/toe-pcapdump"
script_workdir toe-tail

script_netns netns_topology toet$$ 10.10.1
ve() { ip netns exec "$NS_VE" "$@"; }

"$BUILD/bin/toe-fastgen" --templates "$TEMPLATES" --records 4000 --seed 47 --per-msg 4 \
	--truth "$WORK/truth.jsonl" -o "$WORK/feed.step" || fail "toe-fastgen"
len=$(stat -c %s "$WORK/feed.step")
[ "$len" -gt $((4 * TAIL)) ] || fail "the feed ($len bytes) is too short for a $TAIL-byte tail"
clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine)" -DTAIL_TOS=0x28 \
	-c "$here/lossy_tc.bpf.c" -o "$WORK/tail.o" || fail "clang -target bpf"
netns_impair "$NS_VE" vm0 "$WORK/tail.o" || fail "$NETNS_WHY"

start=$(date +%s)
ip netns exec "$NS_MI" tcpdump -i vm1 -n -s 0 -B 32768 --immediate-mode -Z root -w "$WORK/tail.pcap" \
	2>"$WORK/tcpdump.err" &
tpid=$!
pids="$pids $tpid"
for _ in $(seq 100); do
	grep -q "listening on" "$WORK/tcpdump.err" 2>/dev/null && break
	sleep 0.05
done
grep -q "listening on" "$WORK/tcpdump.err" || fail "tcpdump did not start: $(cat "$WORK/tcpdump.err")"

ip netns exec "$NS_EX" timeout 30 "$PY" "$here/mirror_peer.py" serve 10.10.1.1 "$PORT" "$WORK/feed.step" \
	4000000 "$TAIL" &
spid=$!
pids="$pids $spid"
ve timeout 30 "$PY" "$here/mirror_peer.py" fetch 10.10.1.1 "$PORT" "$WORK/recv" || fail "the vendor did not receive the feed"
wait "$spid" || fail "the exchange's sender failed"
sleep 0.3 # frames still in flight to the mirror
kill -INT "$tpid"
wait "$tpid"
cmp -s "$WORK/feed.step" "$WORK/recv" || fail "the vendor received other bytes than were sent"
dropped=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$WORK/tcpdump.err")
[ "${dropped:-0}" = 0 ] || fail "the capture itself lost $dropped packets (tcpdump)"

"$BUILD/bin/toe-pcapdump" --templates "$TEMPLATES" --feed 10.10.1.1:"$PORT" "$WORK/tail.pcap" \
	>"$WORK/out.json" 2>"$WORK/out.err" || {
	cat "$WORK/out.err"
	fail "toe-pcapdump failed"
}
# exactly one loss gap, and it is the tail
"$PY" - "$WORK/out.json" "$len" "$TAIL" <<'EOF' || { sed -n '1,60p' "$WORK/out.err"; fail "the tail gap is not exact"; }
import json, sys
out, n, tail = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
gaps = [g for g in map(json.loads, open(out)) if g.get("event") == "gap" and g["reason"] != "decode"]
want = [{"event": "gap", "stream": gaps[0]["stream"] if gaps else 0, "offset": n - tail, "length": tail,
         "reason": "acked"}]
if gaps != want:
    print("loss gaps %s, expected %s" % (gaps, want))
    sys.exit(1)
EOF
"$PY" "$here/mirror_check.py" lossy "$WORK/feed.step" "$WORK/truth.jsonl" "$WORK/out.json" >"$WORK/check" || {
	cat "$WORK/check"
	fail "the decoded capture does not match the truth outside the gap"
}
for c in "mtoe.ack_gaps 1" "mtoe.ack_gap_bytes $TAIL" "mtoe.fin_inferred 1" "mtoe.closes 1" "rx.gaps_acked 1"; do
	grep -q "^ *$c\$" "$WORK/out.err" || {
		cat "$WORK/out.err"
		fail "toe-pcapdump's counters lack \"$c\""
	}
done
! grep -q "mtoe.close_gaps\|rx.gaps_timeout\|rx.gaps_closed" "$WORK/out.err" ||
	fail "gaps other than the acknowledged tail: $(grep gaps "$WORK/out.err")"
echo "tail: $(cat "$WORK/check"); gap [$((len - TAIL)), $len) acked"
echo "PASS: lost tail reported exactly in $(($(date +%s) - start)) s"
exit 0
