# lib_e2e.sh - toed on the mirror port and the checks of the end-to-end runs (sourced, POSIX sh).
#
# Shared by tests/integration/test_e2e_mirror.sh and tests/bench/bench_e2e.sh,
# on top of lib_netns.sh's netns_topology. The caller sets:
#   WORK (a folder), TOED, TOECTL, STEER (toe_steer.bpf.o), TEMPLATES, EX_IP (the
#   exchange's address), NS_MI (the mirror namespace), PY (python3), and a
#   fail() that reports and exits.
# Provides:
#   e2e_start_toed TYPE [EXTRA]  toed (software backend, source TYPE = af_xdp native or
#                                af_packet) on vm1 in NS_MI, following every connection
#                                from EX_IP; EXTRA: more configuration lines (sections).
#                                Control socket $SOCK, log $WORK/toed.log, pid TOED_PID.
#                                Returns 2 when toed exits before it is ready (e.g. XDP
#                                cannot be attached here).
#   e2e_conf_tail                the [shm] (no huge pages, control socket $SOCK) and [log] (stderr,
#                                info) sections every test configuration ends with
#   e2e_run_toed NS [ARGS]       toed -c $WORK/toed.conf --foreground ARGS in namespace NS (the
#                                configuration already written), log $WORK/toed.log, pid
#                                TOED_PID; 0 once ready, 2 when toed exits before it is ready
#   e2e_stop_toed                SIGTERM, wait (10 s at most), fail unless it exits 0
#   e2e_verify_exact OUT NAME N  toe-verify's summary in OUT says exactly the feed of N records:
#                                N matched, nothing wrong, out of order, outside the truth,
#                                unexplained, in gaps or dropped (fail "NAME: ..." otherwise)
#   (wait_for, wait_file and vget: lib_util.sh, through lib_script.sh)
#   jget FILE PYTHON-EXPR        a value from a JSON document (d), e.g. toectl stats --json
#   cget FILE PID KEY            a client's counter in toectl clients --json, by pid

SOCK=${SOCK:-$WORK/toed.sock}
TOED_PID=

jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

cget() { jget "$1" "[c['$3'] for c in d if c['pid'] == $2][0]"; }

e2e_verify_exact() { # OUT NAME N
	for _k in wrong out_of_order not_in_truth unexplained gaps dropped; do
		[ "$(vget "$1" $_k)" = 0 ] || fail "$2: $_k = $(vget "$1" $_k): $(cat "$1")"
	done
	[ "$(vget "$1" matched)" = "$3" ] || fail "$2: matched $(vget "$1" matched) of $3: $(cat "$1")"
}

e2e_conf_tail() {
	printf '[shm]\nhugepages = off\nsocket = %s\n\n[log]\ntarget = stderr\nlevel = info\n' "$SOCK"
}

e2e_run_toed() { # NS [ARGS]
	_ns=$1
	shift
	: >"$WORK/toed.log"
	# ip netns exec execs the program: $! is toed itself
	ip netns exec "$_ns" "$TOED" -c "$WORK/toed.conf" --foreground "$@" >>"$WORK/toed.log" 2>&1 &
	TOED_PID=$!
	if ! wait_for "$WORK/toed.log" 'notice: ready' 15; then
		if ! kill -0 "$TOED_PID" 2>/dev/null; then
			wait "$TOED_PID"
			TOED_PID=
			return 2
		fi
		fail "toed did not become ready"
	fi
	return 0
}

e2e_start_toed() { # TYPE [EXTRA]
	{
		echo "[source]"
		echo "type = $1"
		echo "interface = vm1"
		[ "$1" = af_xdp ] && echo "xdp_mode = native"
		cat <<EOF

[feed.sse]
exchange = $EX_IP:*

[tcp]
connections = 8
window = 1M
gap_timeout_ms = 50

[fast]
templates = $TEMPLATES

EOF
		e2e_conf_tail
		[ -n "${2:-}" ] && printf '\n%s\n' "$2"
	} >"$WORK/toed.conf"
	e2e_run_toed "$NS_MI" --bpf-object "$STEER"
}

e2e_stop_toed() {
	kill -TERM "$TOED_PID"
	_i=0
	while kill -0 "$TOED_PID" 2>/dev/null && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	kill -0 "$TOED_PID" 2>/dev/null && fail "toed did not stop within 10 s"
	wait "$TOED_PID"
	_rc=$?
	TOED_PID=
	[ $_rc -eq 0 ] || fail "toed exited $_rc"
}
