#!/bin/sh
# bench_e2e_tcp.sh - end-to-end latency through toed's own TCP connection (role = tcp) beside Linux's recv().
#
# Run by tests/bench/run.sh (`make bench`); prints human lines and RESULT {json} lines.
# Three namespaces (lib_netns.sh), offloads off on every veth:
#
#   exchange ex0 10.32.0.1/24 <-> ve0 10.32.0.2 (Linux vendor host: toe-sockrx --connect, kernel TCP, recv())
#            ex1 10.32.1.1/24 <-> tt0 (toed, [port] role = tcp, ip 10.32.1.5, AF_XDP native copy mode)
#
# Two toe-feedsim --listen run at the same time, same seed and rate (E2E_TCP_RATE records/s, default 10000),
# one per receiver: toed connects to its own (its general TOE holds the connection, its data plane
# busy-polls on CPU 1) and toe-verify reads its ring in toe_wait() (the library's default wait), checking
# every record against the truth; toe-sockrx reads the other with a blocking recv() (not pinned).
# Latency is one-way per STEP message, from the simulator's send() (its send log) to the reader's read.
# Two runs, each with its own pair of simulators (toed reconnects between them): "dpcpu", toe-verify
# pinned to the data plane's CPU (the placement the README gives for 2 CPUs, bench_e2e.sh's run 5), and
# "unpinned", toe-verify where the scheduler puts it. The mirror path's figures are bench_e2e.sh's (same
# make bench, not the same run). The ratio printed is Linux recv / toed of the same run. Trust p50/p90;
# the tail is mostly the shared machine's scheduler.
#
# Where the time goes: E2E_TCP_DIAG=DIR keeps, per run in DIR/dpcpu and DIR/unpinned, tcpdump captures of
# both senders' veths, ss -tin samples of the senders' sockets, the send logs, per-message latencies and
# toed's stats; tests/bench/e2e_tcp_diag.py DIR/RUN splits each path into send -> wire (the sender's TCP
# holding bytes: cwnd, pacing, small queues), wire -> capture (toed's XDP stamp) and capture -> read, and
# times toed's ACKs. Knobs for experiments: E2E_TCP_BUSY_POLL (yes), E2E_TCP_PRIORITY (0),
# E2E_TCP_VERIFY_ARGS (extra toe-verify options, e.g. "--spin -1"), E2E_TCP_RUNS ("dpcpu unpinned"), TOED
# (another toed binary for an A/B of two builds).
# Exit 0 done, 77 skipped (no root / namespaces / XDP), 1 a wrong record or a setup failure.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/../integration/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
TOED=${TOED:-$BUILD/bin/toed}
TOECTL=$BUILD/bin/toectl
FEEDSIM=$BUILD/bin/toe-feedsim
SOCKRX=$BUILD/bin/toe-sockrx
VERIFY=$BUILD/bin/toe-verify
STEER=$BUILD/bpf/toe_steer.bpf.o
RATE=${E2E_TCP_RATE:-10000}
RECORDS=${E2E_TCP_RECORDS:-50000}

script_needs_root
script_needs_tools ip tc ethtool timeout
script_needs_python
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs (a busy-polling data plane and a reader)"
script_needs_built "$TOED" "$TOECTL" "$FEEDSIM" "$SOCKRX" "$VERIFY" "$STEER"

script_workdir toe-bench-e2e-tcp
chmod 755 "$WORK"
fail() {
	echo "FAILED: $*"
	[ -f "$WORK/toed.log" ] && tail -n 10 "$WORK/toed.log"
	exit 1
}

NS_EX=toebtex$$ NS_VE=toebtve$$ NS_MI=toebttd$$
script_netns netns_add "$NS_EX" "$NS_VE" "$NS_MI"
script_netns netns_veth "$NS_EX" ex0 "$NS_VE" ve0
script_netns netns_veth "$NS_EX" ex1 "$NS_MI" tt0
ip -n "$NS_EX" addr add 10.32.0.1/24 dev ex0 && ip -n "$NS_VE" addr add 10.32.0.2/24 dev ve0 &&
	ip -n "$NS_EX" addr add 10.32.1.1/24 dev ex1 || fail "cannot address the veths"
. "$root/tests/integration/lib_e2e.sh"

PORT_T=9401 PORT_L=9402
DIAG=${E2E_TCP_DIAG:-} # see below
cat >"$WORK/toed.conf" <<EOF
[source]
type = af_xdp
interface = tt0
xdp_mode = native

[port]
role = tcp
ip = 10.32.1.5
netmask = 24

[feed.sse]
exchange = 10.32.1.1:$PORT_T

[tcp]
connections = 4
window = 1M

[fast]
templates = $TEMPLATES

[shm]
hugepages = off
socket = $SOCK

[dataplane]
cpu = 1
busy_poll = ${E2E_TCP_BUSY_POLL:-yes}
trace = $([ -n "$DIAG" ] && echo yes || echo no)
priority = ${E2E_TCP_PRIORITY:-0}

[log]
target = stderr
level = info
EOF
e2e_run_toed "$NS_MI" --bpf-object "$STEER" ||
	skip "toed (role = tcp, AF_XDP) cannot start here: $(tail -n 2 "$WORK/toed.log")"

# lat_run TAG PIN: one latency run, toe-verify pinned to CPU PIN ("" = not pinned); TAG names its files and
# RESULT lines. Each run has its own pair of simulators (same seed and rate), so toed reconnects between runs.
lat_run() {
	tag=$1 pin=$2
	if [ -n "$pin" ]; then
		vpin="taskset -c $pin" vwhere="pinned to CPU $pin (the data plane's: the 2-CPU placement, as bench_e2e run 5)"
	else
		vpin="" vwhere="not pinned"
	fi
	echo "== latency through toed's own connection ($tag): $RECORDS records at $RATE records/s, send() -> reader's read"
	echo "placement: toed data plane busy-polling on CPU 1 (AF_XDP native copy mode, role = tcp); toe-verify in"
	echo "           toe_wait() (default) $vwhere; toe-sockrx in a blocking recv() and both simulators not"
	echo "           pinned; machine: $(nproc) CPUs, $(uname -r); uptime: $(uptime)"
	w=$WORK/lat-$tag dd=
	$vpin "$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --expect "$RECORDS" --seed 41 --sendlog "$w.t.sendlog" \
		--latency-out "$w.toed.lat" ${E2E_TCP_VERIFY_ARGS:-} --ready "$w.ready" --timeout 90 \
		--label "e2e-toed-tcp-wait-$tag" >"$w.verify.out" 2>"$w.verify.err" &
	p_v=$!
	pids="$pids $p_v"
	wait_file "$w.ready" 10 || fail "toe-verify did not subscribe: $(cat "$w.verify.err")"
	# E2E_TCP_DIAG=DIR: evidence for the latency's cause, kept in DIR: the senders' frames as they leave
	# (tcpdump on ex1 and ex0, headers only), the senders' TCP state every 50 ms (ss -tin), both send logs,
	# the per-message latencies and toed's stats (tests/bench/e2e_tcp_diag.py reads them).
	if [ -n "$DIAG" ]; then
		dd=$DIAG/$tag
		mkdir -p "$dd" || fail "cannot make $dd"
		for d in ex1:$PORT_T ex0:$PORT_L; do
			ip netns exec "$NS_EX" tcpdump -U -i "${d%%:*}" -n -s 128 -w "$dd/${d%%:*}.pcap" "tcp port ${d#*:}" \
				2>"$dd/${d%%:*}.tcpdump.err" &
			pids="$pids $!"
		done
		(while [ ! -e "$w.done" ]; do
			echo "@ $(date +%s.%N)"
			ip netns exec "$NS_EX" ss -tinH "( sport = :$PORT_T or sport = :$PORT_L )"
			sleep 0.05
		done) >"$dd/ss.txt" 2>&1 &
		pids="$pids $!"
		sleep 0.5 # tcpdump is listening
	fi
	ip netns exec "$NS_EX" timeout 90 "$FEEDSIM" --templates "$TEMPLATES" --listen "10.32.1.1:$PORT_T" \
		--records "$RECORDS" --seed 41 --rate "$RATE" --sendlog "$w.t.sendlog" --wait-ms 30000 2>"$w.fs_t.err" &
	p_ft=$!
	ip netns exec "$NS_EX" timeout 90 "$FEEDSIM" --templates "$TEMPLATES" --listen "10.32.0.1:$PORT_L" \
		--records "$RECORDS" --seed 41 --rate "$RATE" --sendlog "$w.l.sendlog" --wait-ms 30000 2>"$w.fs_l.err" &
	p_fl=$!
	ip netns exec "$NS_VE" timeout 90 "$SOCKRX" --templates "$TEMPLATES" --connect "10.32.0.1:$PORT_L" \
		--sendlog "$w.l.sendlog" --latency-out "$w.sockrx.lat" --wait-ms 30000 --label "e2e-tcp-sockrx-recv-$tag" \
		>"$w.sockrx.out" 2>"$w.sockrx.err" &
	p_r=$!
	pids="$pids $p_ft $p_fl $p_r"
	wait "$p_ft" || fail "toe-feedsim (toed's): $(cat "$w.fs_t.err")"
	wait "$p_fl" || fail "toe-feedsim (Linux's): $(cat "$w.fs_l.err")"
	wait "$p_r" || fail "toe-sockrx: $(cat "$w.sockrx.err")"
	wait "$p_v" || fail "toe-verify: $(head -n 20 "$w.verify.err"; cat "$w.verify.out")"
	[ "$(vget "$w.verify.out" matched)" = "$RECORDS" ] ||
		fail "toed's client got $(vget "$w.verify.out" matched) of $RECORDS records exact: $(cat "$w.verify.out")"
	if [ -n "$DIAG" ]; then
		: >"$w.done"
		sleep 0.3
		for f in t.sendlog l.sendlog toed.lat sockrx.lat; do cp "$w.$f" "$dd/lat.$f" 2>/dev/null; done
		"$TOECTL" -s "$SOCK" stats --json >"$dd/stats.json" 2>&1
		"$TOECTL" -s "$SOCK" latency >"$dd/toectl-latency.txt" 2>&1
	fi
	grep -h '^toe-verify: .*latency' "$w.verify.err"
	grep -h '^toe-sockrx: .*latency' "$w.sockrx.err"
	grep -h '^RESULT ' "$w.verify.out" "$w.sockrx.err"
	grep -h '^RESULT ' "$w.verify.out" "$w.sockrx.err" | sed 's/^RESULT //' >"$w.jsonl"
	"$PY" - "$w.jsonl" "$tag" <<'EOF' || fail "ratio"
import json, sys
res = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    res[d.get("name")] = d
b, t = res.get("e2e-tcp-sockrx-recv-" + sys.argv[2]), res.get("e2e-toed-tcp-wait-" + sys.argv[2])
if not b or not t:
    sys.exit("missing results: %s" % sorted(res))
out = {"name": "e2e-ratio-tcp-sockrx-recv-vs-toed-tcp-wait-" + sys.argv[2], "unit": "x", "same_run": True}
for k in ("p50", "p90", "p99"):
    out[k] = round(b[k] / t[k], 2) if t.get(k) else None
print("Linux recv / toed's own connection (%s), same run: p50 %.2fx, p90 %.2fx, p99 %.2fx" %
      (sys.argv[2], out["p50"] or 0, out["p90"] or 0, out["p99"] or 0))
print("RESULT " + json.dumps(out, separators=(",", ":")))
EOF
}
for run in ${E2E_TCP_RUNS:-dpcpu unpinned}; do
	case $run in
	dpcpu) lat_run dpcpu 1 ;;
	unpinned) lat_run unpinned "" ;;
	*) fail "E2E_TCP_RUNS: no run $run (dpcpu, unpinned)" ;;
	esac
done
"$TOECTL" -s "$SOCK" stats --json >"$WORK/s.json" || fail "toectl stats"
echo "toed's connection: $(jget "$WORK/s.json" "d['tcp_connections'][0]['bytes_in']") bytes in, $(jget "$WORK/s.json" "d['tcp_connections'][0]['acks_out']") ACKs out; uptime after: $(uptime)"
e2e_stop_toed
exit 0
