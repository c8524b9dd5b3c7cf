#!/bin/sh
# bench_burst.sh - an unpaced burst into toed: does every record of a 10x replay arrive? AF_XDP against AF_PACKET.
#
# Run by tests/bench/run.sh (`make bench`); prints human lines and RESULT {json} lines.
#
# A 20,000-record feed (toe-fastgen, one to four records per STEP message)
# becomes ten captures of TCP connections (mkpcap, one per vendor port), and
# tcpreplay plays all ten back to back as fast as it can (--topspeed) from
# namespace A into a veth whose other end, in namespace B, is toed's source.
# Two segment sizes (BURST_MSS): 1408 bytes (full segments, ~13 records a
# frame: the burst of records is the steepest) and 120 bytes (about one STEP
# message a frame, as an exchange's TCP_NODELAY sends: the most frames). A client (tick_client, toe_wait, a ring large enough for all of it)
# counts what arrives. Run side by side in one run, same capture, same
# placement (toed's data plane busy-polling on CPU 1, tcpreplay on CPU 0,
# the client not pinned):
#   af_packet            TPACKET_V3, 64 MiB ring (the peer)
#   af_xdp-old-rings     AF_XDP with the rings of before: rx 2048, fill 2048, 4096 frames
#   af_xdp               AF_XDP with the defaults (rx 65536, fill 65536, 131072 frames)
#   af_xdp-busy-poll     the defaults and preferred busy polling (xsk_busy_poll = yes)
# Then a sustained run: 1.6 M records (16 connections of a 100,000-record feed
# in full segments) paced by tcpreplay --pps at SUSTAINED_RATE (800,000)
# records/s, into AF_PACKET, AF_XDP with the old rings and AF_XDP; then AF_XDP
# and AF_PACKET again with the data plane at SCHED_FIFO priority 10 on CPU 1
# ([dataplane] priority), as a site would run it: on a machine shared with
# other work, a data plane at normal priority gets only part of its CPU.
# Each reports records delivered of the total, the gaps the client saw and the
# source's counters (drops: xsk_rx_ring_full, xsk_fill_ring_empty, afp_drops;
# who stamped the frames: ts_nic, ts_kernel, ts_poll), read when the client
# has everything (the counters are published every few ms: the last frames,
# FIN and ACKs, may be missing from `frames`).
#
# Exit 0 done, 77 skipped (no root / namespaces / XDP / tcpreplay), 1 a setup failure.
# Takes about 70 s.
set -u
. "$(dirname "$0")/../integration/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
TOED=${TOED:-$BUILD/bin/toed}
TOECTL=$BUILD/bin/toectl
STEER=$BUILD/bpf/toe_steer.bpf.o
RECORDS=${BURST_RECORDS:-20000}
LOOPS=${BURST_LOOPS:-10}
MSS_LIST=${BURST_MSS:-1408 120}

script_needs_root
script_needs_tools ip tc ethtool tcpreplay taskset
script_needs_python
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs"
make -s BUILD="$BUILD" "$BUILD/itest/mkpcap" "$BUILD/itest/tick_client" >/dev/null 2>&1
script_needs_built "$TOED" "$TOECTL" "$STEER" "$BUILD/bin/toe-fastgen" "$BUILD/itest/mkpcap" "$BUILD/itest/tick_client"

TOED_PID=
script_workdir toe-bench-burst
chmod 755 "$WORK"
fail() {
	echo "FAILED: $*"
	[ -f "$WORK/toed.log" ] && tail -n 10 "$WORK/toed.log"
	exit 1
}

NS_A=toebu-a-$$
NS_B=toebu-b-$$
script_netns netns_add "$NS_A" "$NS_B"
script_netns netns_veth "$NS_A" va "$NS_B" vb

# ---- the captures: LOOPS connections of the same feed ----------------------------
"$BUILD/bin/toe-fastgen" --templates "$TEMPLATES" --records "$RECORDS" --seed 7 --framing step --per-msg 4 \
	-o "$WORK/feed.step" || fail "toe-fastgen"
# captures MSS: the LOOPS captures in $pcaps
captures() {
	pcaps=
	i=0
	while [ $i -lt "$LOOPS" ]; do
		"$BUILD/itest/mkpcap" --mss "$1" --fin --vendor "10.1.0.2:$((41000 + i))" --start-s $((1700000000 + i)) \
			"$WORK/feed.step" "$WORK/c$i.pcap" >"$WORK/mkpcap.out" || fail "mkpcap"
		pcaps="$pcaps $WORK/c$i.pcap"
		i=$((i + 1))
	done
	echo "== segments of $1 bytes: $RECORDS records x $LOOPS connections = $want records," \
		"$(head -n 1 "$WORK/mkpcap.out") per connection"
}
want=$((RECORDS * LOOPS))
echo "placement: toed data plane busy-polling on CPU 1; tcpreplay --topspeed on CPU 0; the client (toe_wait) not pinned;"
echo "           machine: $(nproc) CPUs, $(uname -r)"

# ---- one run ----------------------------------------------------------------------
# burst NAME TYPE [source lines]: sets GOT, GAPS, DROPS, SECS
burst() {
	name=$1 type=$2
	cat >"$WORK/toed.conf" <<EOF
[source]
type = $type
interface = vb
${3:-}

[feed.sse]
exchange = 10.1.0.10:5261

[tcp]
connections = 16
window = 1M
gap_timeout_ms = 50

[fast]
templates = $TEMPLATES

[shm]
hugepages = off
ring_size = 262144
socket = $WORK/toed.sock

[dataplane]
cpu = 1
busy_poll = yes
${DP_EXTRA:-}

[log]
target = stderr
level = info
EOF
	: >"$WORK/toed.log"
	ip netns exec "$NS_B" "$TOED" -c "$WORK/toed.conf" --foreground --bpf-object "$STEER" >>"$WORK/toed.log" 2>&1 &
	TOED_PID=$!
	_w=0
	while ! grep -q 'notice: ready' "$WORK/toed.log" && [ $_w -lt 300 ]; do
		kill -0 "$TOED_PID" 2>/dev/null || { wait "$TOED_PID"; TOED_PID=; return 2; }
		sleep 0.05
		_w=$((_w + 1))
	done
	[ $_w -lt 300 ] || fail "$name: toed did not become ready"
	"$BUILD/itest/tick_client" --socket "$WORK/toed.sock" --types trade,order,gap --count "$want" --idle-ms 3000 \
		--timeout 120 --capacity 262144 --quiet -o "$WORK/$name.ticks" 2>"$WORK/$name.client" &
	_c=$!
	sleep 0.3
	echo "$name: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	# shellcheck disable=SC2086
	ip netns exec "$NS_A" taskset -c 0 tcpreplay -i va $REPLAY $pcaps >"$WORK/$name.replay" 2>&1 ||
		fail "$name: tcpreplay: $(cat "$WORK/$name.replay")"
	wait "$_c"
	"$TOECTL" -s "$WORK/toed.sock" stats --json >"$WORK/$name.stats.json" 2>/dev/null || fail "$name: toectl stats"
	kill "$TOED_PID"
	wait "$TOED_PID"
	TOED_PID=
	GAPS=$(grep -c '"event":"gap"' "$WORK/$name.ticks")
	GOT=$(sed -n 's/^tick_client: \([0-9]*\) records, \([0-9]*\) skipped.*/\1/p' "$WORK/$name.client")
	SKIPPED=$(sed -n 's/^tick_client: \([0-9]*\) records, \([0-9]*\) skipped.*/\2/p' "$WORK/$name.client")
	GOT=$((${GOT:-0} - GAPS))
	DROPS=$("$PY" - "$WORK/$name.stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1])).get("source", {})
keys = ("frames", "xsk_rx_ring_full", "xsk_fill_ring_empty", "xsk_rx_dropped", "xdp_steered", "xdp_no_socket",
        "afp_drops", "ts_nic", "ts_kernel", "ts_poll")
print(" ".join("%s=%d" % (k, s.get(k, 0)) for k in keys if k in s))
EOF
)
	PPS=$(sed -n 's/.*Rated: [0-9.]* Bps, [0-9.]* Mbps, \([0-9.]*\) pps.*/\1/p' "$WORK/$name.replay" | head -n 1)
	SECS=$(sed -n 's/.*Actual: [0-9]* packets ([0-9]* bytes) sent in \([0-9.]*\) seconds.*/\1/p' "$WORK/$name.replay" | head -n 1)
	RPS=$("$PY" -c "import sys; print(int($want / float(sys.argv[1])) if float(sys.argv[1]) > 0 else 0)" "${SECS:-0}")
	echo "$name: $GOT of $want records, $GAPS gaps, ${SKIPPED:-?} dropped in the client's ring; source: $DROPS;" \
		"tcpreplay ${PPS:-?} frames/s, ${SECS:-?} s: $RPS records/s"
	echo "RESULT {\"name\":\"$KIND-$name\",\"unit\":\"records\",\"want\":$want,\"got\":$GOT,\"gaps\":$GAPS,\"ring_dropped\":${SKIPPED:-0},\"replay_pps\":\"${PPS:-}\",\"replay_s\":\"${SECS:-}\",\"records_per_s\":$RPS,\"source\":\"$DROPS\",\"load\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}"
	return 0
}

KIND=burst
REPLAY=--topspeed
for mss in $MSS_LIST; do
	captures "$mss"
	burst "af_packet-mss$mss" af_packet
	burst "af_xdp-old-rings-mss$mss" af_xdp "xdp_mode = native
xsk_rx_ring = 2048
xsk_fill_ring = 2048
xsk_frames = 4096"
	[ $? -eq 2 ] && skip "AF_XDP cannot be attached here: $(grep -m1 -i 'error' "$WORK/toed.log") (AF_PACKET measured)"
	burst "af_xdp-mss$mss" af_xdp "xdp_mode = native"
	burst "af_xdp-busy-poll-mss$mss" af_xdp "xdp_mode = native
xsk_busy_poll = yes"
done

# ---- sustained: SUSTAINED_RATE records/s for a few seconds ------------------------------
# SUSTAINED_CONNS connections of a SUSTAINED_RECORDS-record feed in full segments, paced by
# tcpreplay at the frame rate that carries SUSTAINED_RATE records/s
KIND=sustained
RATE=${SUSTAINED_RATE:-800000}
RECORDS=${SUSTAINED_RECORDS:-100000}
LOOPS=${SUSTAINED_CONNS:-16}
"$BUILD/bin/toe-fastgen" --templates "$TEMPLATES" --records "$RECORDS" --seed 9 --framing step --per-msg 4 \
	-o "$WORK/feed.step" || fail "toe-fastgen"
want=$((RECORDS * LOOPS))
captures 1408
nframes=$(($(sed -n 's/^\([0-9]*\) frames.*/\1/p' "$WORK/mkpcap.out") * LOOPS))
pps=$((RATE * nframes / want))
echo "== sustained: $want records at $RATE records/s = $pps frames/s of $nframes frames (tcpreplay --pps)"
REPLAY="--pps=$pps"
burst "af_packet-${RATE}" af_packet
burst "af_xdp-old-rings-${RATE}" af_xdp "xdp_mode = native
xsk_rx_ring = 2048
xsk_fill_ring = 2048
xsk_frames = 4096"
burst "af_xdp-${RATE}" af_xdp "xdp_mode = native"
# the deployment for a steady rate: the data plane owns CPU 1 (SCHED_FIFO), the machine's other
# work (builds of other users here) runs on CPU 0 only while the data plane spins
DP_EXTRA="priority = 10"
burst "af_xdp-${RATE}-fifo" af_xdp "xdp_mode = native"
burst "af_packet-${RATE}-fifo" af_packet
DP_EXTRA=
exit 0
