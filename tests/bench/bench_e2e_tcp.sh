#!/bin/sh
# bench_e2e_tcp.sh - end-to-end latency through toed's own TCP connection (role = tcp) and through toed's
# mirror path (role = mirror), beside Linux's recv(), all three in the same run.
#
# Run by tests/bench/run.sh (`make bench`); prints human lines and RESULT {json} lines.
# Three namespaces (lib_netns.sh), offloads off on every veth:
#
#   exchange ex0 10.32.0.1/24 <-> ve0 10.32.0.2 (Linux vendor host: toe-sockrx --connect, kernel TCP, recv())
#                                 ve0 both directions: tc u32 + mirred egress mirror to vm0 (netns_link_mirror)
#                                 vm0 <-> vm1 (toed, [port.1] role = mirror, AF_XDP native copy mode)
#            ex1 10.32.1.1/24 <-> tt0 (toed, [port] role = tcp, ip 10.32.1.5, AF_XDP native copy mode)
#
# One toed, two ports of the software backend (doc/config.md [port.N]: one AF_XDP socket per port, both
# polled by the one data plane busy-polling on CPU 1): [feed.sse] (stream sse) is toed's own connection on
# port 0, [feed.mirror] (stream mirror) follows the Linux vendor's connection on port 1 from the mirror copy.
# Two toe-feedsim --listen run at the same time, same seed and rate (E2E_TCP_RATE records/s, default 10000):
# toed connects to one; toe-sockrx reads the other with a blocking recv() (not pinned) while toed's mirror
# port sees the same bytes. Two toe-verify read toed's rings in toe_wait() (the library's default wait),
# one per stream (--stream sse / --stream mirror), each checking every record against the truth (exact:
# nothing wrong, missing, in gaps or dropped). Latency is one-way per STEP message, from the simulator's
# send() (its send log; the mirror reader and toe-sockrx share the Linux connection's) to the reader's read.
# Two runs, each with its own pair of simulators (toed reconnects between them, the mirror TOE follows the
# new Linux connection): "dpcpu", both toe-verify pinned to the data plane's CPU (the placement the README
# gives for 2 CPUs, bench_e2e.sh's run 5), and "unpinned", both where the scheduler puts them. The ratios
# printed are Linux recv / toed's own connection and Linux recv / toed's mirror path, of the same run. Trust
# p50/p90; the tail is mostly the shared machine's scheduler. After each run a "data plane" line (and RESULT
# e2e-tcp-dataplane-RUN) says whether the data plane spun or slept between frames (pipeline waits, spin
# yields: dp_spin.h) and who else wanted CPU 1: the data-plane thread's run and run-queue wait (its
# schedstat), CPU 1's busy share (/proc/stat) and the two readers' CPU time.
#
# Where the time goes: E2E_TCP_DIAG=DIR keeps, per run in DIR/dpcpu and DIR/unpinned, tcpdump captures of
# both senders' veths, ss -tin samples of the senders' sockets, the send logs, per-message latencies and
# toed's stats; tests/bench/e2e_tcp_diag.py DIR/RUN splits each path (own, mirror, Linux) into send -> wire
# (the sender's TCP holding bytes: cwnd, pacing, small queues), wire -> capture (toed's XDP stamp) and
# capture -> read, and times the receivers' ACKs. Knobs for experiments: E2E_TCP_BUSY_POLL (yes), E2E_TCP_PRIORITY (0),
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
# ex0 10.32.0.1 <-> ve0 10.32.0.2, both directions of ve0 mirrored to vm0 <-> vm1 (toed's mirror port)
script_netns netns_link_mirror ex0 ve0 10.32.0 vm0 vm1
script_netns netns_veth "$NS_EX" ex1 "$NS_MI" tt0
ip -n "$NS_EX" addr add 10.32.1.1/24 dev ex1 || fail "cannot address ex1"
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

[port.1]
role = mirror
interface = vm1

# toed's own connection (port 0), stream sse
[feed.sse]
exchange = 10.32.1.1:$PORT_T

# the Linux vendor's connection, followed from the mirror copy (port 1), stream mirror
[feed.mirror]
port = 1
exchange = 10.32.0.1:$PORT_L

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

# sched_snap FILE: where CPU 1's time goes, for the line after each run: toed's data-plane thread's run
# and run-queue wait (its schedstat, what dp_spin.c reads), CPU 1's ticks (/proc/stat) and toed's stats
sched_snap() {
	{
		echo "clock $(date +%s%N)"
		for t in /proc/"$TOED_PID"/task/*; do
			[ "$(cat "$t/comm" 2>/dev/null)" = toed-dataplane ] && echo "dp $(cat "$t/schedstat")"
		done
		grep '^cpu1 ' /proc/stat
	} >"$1.sched"
	"$TOECTL" -s "$SOCK" stats --json >"$1.json" || fail "toectl stats"
}

# lat_run TAG PIN: one latency run, both toe-verify (own connection, mirror path) pinned to CPU PIN ("" = not
# pinned); TAG names its files and RESULT lines. Each run has its own pair of simulators (same seed and rate),
# so toed reconnects between runs and its mirror port sees a new Linux connection.
lat_run() {
	tag=$1 pin=$2
	if [ -n "$pin" ]; then
		vpin="taskset -c $pin" vwhere="both pinned to CPU $pin (the data plane's: the 2-CPU placement, as bench_e2e run 5)"
	else
		vpin="" vwhere="neither pinned"
	fi
	echo "== latency through toed's own connection and toed's mirror path beside Linux recv ($tag): $RECORDS records"
	echo "   at $RATE records/s per sender, send() -> reader's read"
	echo "placement: toed's one data plane busy-polling on CPU 1 (AF_XDP native copy mode; port 0 role = tcp on tt0,"
	echo "           port 1 role = mirror on vm1); two toe-verify in toe_wait() (default), one per stream, $vwhere;"
	echo "           toe-sockrx in a blocking recv() and both simulators not pinned;"
	echo "           machine: $(nproc) CPUs, $(uname -r); uptime: $(uptime)"
	w=$WORK/lat-$tag dd=
	# shellcheck disable=SC2086 # E2E_TCP_VERIFY_ARGS is a list of options
	$vpin "$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --stream sse --expect "$RECORDS" --seed 41 \
		--sendlog "$w.t.sendlog" --latency-out "$w.toed.lat" ${E2E_TCP_VERIFY_ARGS:-} --ready "$w.ready" \
		--timeout 90 --label "e2e-toed-tcp-wait-$tag" >"$w.verify.out" 2>"$w.verify.err" &
	p_v=$!
	# the mirror path's reader: the Linux connection's send log (the same bytes toe-sockrx reads)
	# shellcheck disable=SC2086
	$vpin "$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --stream mirror --expect "$RECORDS" --seed 41 \
		--sendlog "$w.l.sendlog" --latency-out "$w.mirror.lat" ${E2E_TCP_VERIFY_ARGS:-} --ready "$w.mready" \
		--timeout 90 --label "e2e-toed-mirror-wait-$tag" >"$w.mverify.out" 2>"$w.mverify.err" &
	p_m=$!
	pids="$pids $p_v $p_m"
	wait_file "$w.ready" 10 || fail "toe-verify (own connection) did not subscribe: $(cat "$w.verify.err")"
	wait_file "$w.mready" 10 || fail "toe-verify (mirror path) did not subscribe: $(cat "$w.mverify.err")"
	sched_snap "$w.s0"
	# E2E_TCP_DIAG=DIR: evidence for the latency's cause, kept in DIR: the senders' frames as they leave
	# (tcpdump on ex1 and ex0, headers only; ex0's frames are the ones the mirror copies), the senders' TCP
	# state every 50 ms (ss -tin), both send logs, the per-message latencies and toed's stats
	# (tests/bench/e2e_tcp_diag.py reads them).
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
	wait "$p_v" || fail "toe-verify (own connection): $(head -n 20 "$w.verify.err"; cat "$w.verify.out")"
	wait "$p_m" || fail "toe-verify (mirror path): $(head -n 20 "$w.mverify.err"; cat "$w.mverify.out")"
	sched_snap "$w.s1"
	# every record of both feeds exact: nothing wrong, out of order, missing in a gap or dropped
	e2e_verify_exact "$w.verify.out" "toed's own connection ($tag)" "$RECORDS"
	e2e_verify_exact "$w.mverify.out" "toed's mirror path ($tag)" "$RECORDS"
	if [ -n "$DIAG" ]; then
		: >"$w.done"
		sleep 0.3
		for f in t.sendlog l.sendlog toed.lat mirror.lat sockrx.lat; do cp "$w.$f" "$dd/lat.$f" 2>/dev/null; done
		"$TOECTL" -s "$SOCK" stats --json >"$dd/stats.json" 2>&1
		"$TOECTL" -s "$SOCK" latency >"$dd/toectl-latency.txt" 2>&1
	fi
	grep -h '^toe-verify: .*latency' "$w.verify.err" "$w.mverify.err"
	grep -h '^toe-sockrx: .*latency' "$w.sockrx.err"
	grep -h '^RESULT ' "$w.verify.out" "$w.mverify.out" "$w.sockrx.err"
	grep -h '^RESULT ' "$w.verify.out" "$w.mverify.out" "$w.sockrx.err" | sed 's/^RESULT //' >"$w.jsonl"
	# did the data plane spin? its run-queue wait against CPU 1's other users (the readers when pinned there)
	"$PY" - "$w.s0" "$w.s1" "$tag" "$(vget "$w.verify.out" cpu_seconds)" "$(vget "$w.mverify.out" cpu_seconds)" \
		"${pin:-none}" <<'EOF' || fail "data plane figures"
import json, sys
def load(p):
    d = {}
    for line in open(p + ".sched"):
        f = line.split()
        d[f[0]] = [int(x) for x in f[1:]]
    return d, json.load(open(p + ".json"))
(a, ja), (b, jb) = load(sys.argv[1]), load(sys.argv[2])
span = (b["clock"][0] - a["clock"][0]) / 1e9
pa, pb = ja.get("pipeline", {}), jb.get("pipeline", {})
line = "data plane (%s, %.1f s): waits +%d, spin_yields +%d, sleeping now %d, spin_wait_pct %d" % (
    sys.argv[3], span, pb.get("waits", 0) - pa.get("waits", 0), pb.get("spin_yields", 0) - pa.get("spin_yields", 0),
    pb.get("spin_sleeping", 0), pb.get("spin_wait_pct", 0))
out = {"name": "e2e-tcp-dataplane-" + sys.argv[3], "unit": "share", "seconds": round(span, 2),
       "waits": pb.get("waits", 0) - pa.get("waits", 0),
       "spin_yields": pb.get("spin_yields", 0) - pa.get("spin_yields", 0)}
if "dp" in a and "dp" in b and span > 0:
    run, wait = (b["dp"][0] - a["dp"][0]) / 1e9, (b["dp"][1] - a["dp"][1]) / 1e9
    c = [y - x for x, y in zip(a["cpu1"], b["cpu1"])]  # user nice system idle iowait irq softirq steal ...
    tot = sum(c[:8]) or 1
    busy = 1 - (c[3] + c[4]) / tot
    readers = float(sys.argv[4] or 0) + float(sys.argv[5] or 0)
    line += ("; its thread ran %.0f%% and waited runnable %.0f%% of the run; CPU 1 busy %.0f%%; the two readers' "
             "CPU time %.0f%% of the run (pinned to CPU %s)") % (100 * run / span, 100 * wait / span, 100 * busy,
                                                               100 * readers / span, sys.argv[6])
    out.update(dp_run=round(run / span, 3), dp_runq_wait=round(wait / span, 3), cpu1_busy=round(busy, 3),
               readers_cpu=round(readers / span, 3))
print(line)
print("RESULT " + json.dumps(out, separators=(",", ":")))
EOF
	"$PY" - "$w.jsonl" "$tag" <<'EOF' || fail "ratio"
import json, sys
res = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    res[d.get("name")] = d
tag = sys.argv[2]
names = {"recv": "e2e-tcp-sockrx-recv-" + tag, "own": "e2e-toed-tcp-wait-" + tag,
         "mirror": "e2e-toed-mirror-wait-" + tag}
missing = [n for n in names.values() if n not in res]
if missing:
    sys.exit("missing results %s (have %s)" % (missing, sorted(res)))
us = lambda r, k: "%.1f" % (r[k] / 1e3) if r.get(k) is not None else "-"
print("same run (%s), one-way us p50/p90/p99:" % tag)
for key, what in (("own", "toed's own connection"), ("mirror", "toed's mirror path"), ("recv", "Linux recv")):
    r = res[names[key]]
    print("  %-22s %s/%s/%s" % (what, us(r, "p50"), us(r, "p90"), us(r, "p99")))
b = res[names["recv"]]
for key, what, short in (("own", "toed's own connection", "toed-tcp-wait"),
                         ("mirror", "toed's mirror path", "toed-mirror-wait")):
    t = res[names[key]]
    out = {"name": "e2e-ratio-tcp-sockrx-recv-vs-%s-%s" % (short, tag), "unit": "x", "same_run": True}
    for k in ("p50", "p90", "p99"):
        out[k] = round(b[k] / t[k], 2) if t.get(k) else None
    print("Linux recv / %s (%s), same run: p50 %.2fx, p90 %.2fx, p99 %.2fx" %
          (what, tag, out["p50"] or 0, out["p90"] or 0, out["p99"] or 0))
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
echo "toed's mirror port: $(jget "$WORK/s.json" "[p for p in d['ports'] if p['port'] == 1][0]['frames']") frames; mirror TOE: $(jget "$WORK/s.json" "d['mtoe']['bytes']") bytes, $(jget "$WORK/s.json" "d['mtoe']['gaps']") gaps, $(jget "$WORK/s.json" "d['mtoe']['opens']") connections followed"
e2e_stop_toed
exit 0
