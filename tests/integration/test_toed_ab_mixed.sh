#!/bin/sh
# test_toed_ab_mixed.sh - A/B arbitration across a main port and a mirror port: toed's own TCP connection
# (line A, [port.0] role = tcp) and a mirrored Linux connection (line B, [port.1] role = mirror) in one group.
#
# Issue 13 names three kinds of arbitration group: connections on one port,
# connections on different mirror ports (test_toed_ab.sh), and a mirror port
# with a main port: this one. Namespaces (lib_netns.sh):
#
#   exchange ex1 10.32.0.1 <-- veth --> tt0 toed [port.0] role = tcp, ip 10.32.0.5 (line A: toed connects)
#   exchange ex0 10.31.0.1 <-> ve0 10.31.0.2 vendor (toe-sockrx), ve0 mirrored -> vm0 <-> vm1 toed [port.1]
#
# Two toe-feedsim servers with the same seed and options as test_toed_ab.sh
# (the same records in the same messages) serve line A (toed's connection)
# and line B (the vendor's); [feed.a] and [feed.b] form group "ab" with
# [fast] sequence_check = yes; a client subscribes to the stream "ab". The
# feeds start at different moments (--delay-ms) so that one line leads:
#
#   plain   line A leads: every record delivered exactly once, no sequence
#           gap, every record says group 2; toectl stats: each line carried
#           the whole feed (won + dups = N: B's copies all dropped), the lines'
#           won add up to N and match the client's per-line counts.
#   kill    line B leads and its exchange is killed (SIGKILL) mid-stream: the
#           client sees a TOE_RESET_ARB_SWITCH naming line 1, line A (behind)
#           carries on and delivers the rest: every record exactly once, no
#           sequence gap; both lines won records, line A carried all N.
#
# Needs root, ip, tc, ethtool, python3; exits 77 (SKIP) without them. Run it
# under flock /tmp/toed-itest.lock. Takes about 20 s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
TOED=${TOED:-$(asan_fresh "$BUILD/bin/toed" "$BUILD/asan/bin/toed")}
FEEDSIM=$BUILD/bin/toe-feedsim
SOCKRX=$BUILD/bin/toe-sockrx
TICK=$BUILD/itest/tick_client
TOECTL=$BUILD/bin/toectl
PA=5261
PB=5262
RECORDS=4000
RATE=2000

script_needs_root
script_needs_tools ip tc ethtool timeout
script_needs_python
script_build "$TOED" "$FEEDSIM" "$SOCKRX" "$TICK" "$TOECTL"

script_workdir toe-abmix
chmod 755 "$WORK"
SOCK=$WORK/toed.sock
FAIL_LOG=$WORK/toed.log
. "$here/lib_e2e.sh"

# line B: the mirrored topology (vm1 in NS_MI is toed's port 1); line A: a link of its own to toed's tt0
script_netns netns_topology toabx$$ 10.31.0
script_netns netns_veth "$NS_EX" ex1 "$NS_MI" tt0
ip -n "$NS_EX" addr add 10.32.0.1/24 dev ex1 || fail "cannot address ex1"
EXA_IP=10.32.0.1
EXB_IP=10.31.0.1
TOED_IP=10.32.0.5

start_toed() {
	{
		printf '[source]\ntype = af_packet\ninterface = tt0\n\n'
		printf '[port.0]\nrole = tcp\nip = %s\nnetmask = 24\n\n' $TOED_IP
		printf '[port.1]\ninterface = vm1\n\n'
		printf '[feed.a]\nexchange = %s:%s\ngroup = ab\n\n' $EXA_IP $PA
		printf '[feed.b]\nexchange = %s:%s\ngroup = ab\nport = 1\n' $EXB_IP $PB
		cat <<EOF

[tcp]
connections = 8
window = 1M

[fast]
templates = $TEMPLATES
sequence_check = yes
# longer than any reordering of a line; the lines' lag itself needs no wait (nothing is missing)
arbitration_wait_us = 300000

EOF
		e2e_conf_tail
	} >"$WORK/toed.conf"
	e2e_run_toed "$NS_MI" || fail "toed exited before it was ready"
}

# run NAME DELAY-A-MS DELAY-B-MS [KILL-B-AFTER-S]: one feed over both lines; the group's client records it
run() {
	name=$1
	w=$WORK/$name
	# line A's server listens before toed starts, so toed's first connection attempt is taken at once
	ip netns exec "$NS_EX" "$FEEDSIM" --templates "$TEMPLATES" --listen "$EXA_IP:$PA" \
		--records $RECORDS --seed 7 --rate $RATE --truth "$w.truth.A" --delay-ms "$2" --wait-ms 20000 \
		2>"$w.feedsim.A" &
	p_fsA=$!
	ip netns exec "$NS_EX" "$FEEDSIM" --templates "$TEMPLATES" --listen "$EXB_IP:$PB" \
		--records $RECORDS --seed 7 --rate $RATE --truth "$w.truth.B" --delay-ms "$3" --wait-ms 20000 \
		2>"$w.feedsim.B" &
	p_fsB=$!
	pids="$pids $p_fsA $p_fsB"
	sleep 0.2
	start_toed
	"$TICK" --socket "$SOCK" --stream ab --from-start --brief --idle-ms 3000 --timeout 40 --ready "$w.ready" \
		-o "$w.ab" 2>"$w.ab.err" &
	p_ab=$!
	pids="$pids $p_ab"
	wait_file "$w.ready" 10 || fail "$name: client ab did not subscribe: $(cat "$w.ab.err")"
	ip netns exec "$NS_VE" timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect "$EXB_IP:$PB" \
		--wait-ms 20000 2>"$w.sockrx.B" &
	p_rxB=$!
	pids="$pids $p_rxB"
	if [ -n "${4:-}" ]; then
		sleep "$4"
		kill -KILL "$p_fsB"
		wait "$p_fsB" 2>/dev/null
	else
		wait "$p_fsB" || fail "$name: toe-feedsim B failed: $(cat "$w.feedsim.B")"
		wait "$p_rxB" || fail "$name: the vendor of line B failed: $(cat "$w.sockrx.B")"
	fi
	wait "$p_fsA" || fail "$name: toe-feedsim A (toed's connection) failed: $(cat "$w.feedsim.A")"
	wait "$p_ab"
	wait "$p_rxB" 2>/dev/null
	"$TOECTL" -s "$SOCK" stats --json >"$w.stats.json" || fail "$name: toectl stats"
	[ "$(wc -l <"$w.truth.A")" = $RECORDS ] || fail "$name: line A's truth has $(wc -l <"$w.truth.A") records"
	"$PY" - "$w" "$name" $RECORDS "${4:+kill}" <<'EOF' || fail "$name: see above"
import json, sys
w, label, n, kill = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "kill"
recs = [(t.get("TradeChannel", t.get("OrderChannel")), t["BizIndex"]) for t in map(json.loads, open(w + ".truth.A"))]
got, bylines, events, seqgaps, msggaps, groups, bad = {}, [0, 0], [], 0, [], set(), []
for ln in open(w + ".ab"):
    f = ln.split()
    if f[0] in "TO":
        k = (int(f[1]), int(f[2]))
        got[k] = got.get(k, 0) + 1
        groups.add(int(f[3]))
        bylines[int(f[4])] += 1
    elif f[0] == "X":
        events.append((int(f[1]), int(f[2]), int(f[3])))
    elif f[0] == "G" and f[1] == "7":
        seqgaps += 1
    elif f[0] == "G" and f[1] == "8":
        msggaps.append(f[1:7])
def check(cond, what):
    if not cond:
        bad.append(what)
once = sum(1 for k in recs if got.get(k) == 1)
check(once == len(recs) == n and len(got) == n, "%d of %d records delivered exactly once (%d distinct)" % (once, n, len(got)))
check(not seqgaps, "%d sequence gaps" % seqgaps)
# each line's MsgSeqNum runs 1, 2, ... on its own connection: neither a restart nor a jump (once both lines
# shared one pipeline stream, toed's connection and the mirror's first slot, and each saw the other's numbers)
check(not msggaps, "MsgSeqNum gaps %s" % msggaps)
check(not [e for e in events if e[0] == 3], "restart events %s" % [e for e in events if e[0] == 3])
check(groups == {2}, "records of groups %s (expected only 2)" % sorted(groups))
if not kill:
    # both truths are the same feed (line B ran to its end)
    check(open(w + ".truth.A").read() == open(w + ".truth.B").read(), "the two lines did not carry the same feed")
st = json.load(open(w + ".stats.json"))
grp = [g for g in st.get("sequence_groups", []) if g.get("name") == "ab"]
check(len(grp) == 1, "toectl stats has no sequence group ab")
if grp:
    g = grp[0]
    won, dups = [g["line0.won"], g["line1.won"]], [g["line0.dups"], g["line1.dups"]]
    check(g["lines"] == 2, "toectl: group ab has %s lines" % g["lines"])
    check(won == bylines, "toectl: lines won %s, the client got %s per line" % (won, bylines))
    check(won[0] + dups[0] == n, "toectl: line A (toed's connection) carried %d+%d of %d" % (won[0], dups[0], n))
    check(g["gaps"] == 0 and g["missing"] == 0, "toectl: %d gaps missing %d" % (g["gaps"], g["missing"]))
    if kill:
        check(won[0] > 0 and won[1] > 0, "toectl: lines won %s: both should have won records" % won)
        check(won[1] + dups[1] < n, "line B carried all %d records: it was not killed mid-stream" % n)
    else:
        check(won[1] + dups[1] == n, "toectl: line B (the mirror) carried %d+%d of %d" % (won[1], dups[1], n))
        check(won[0] == n, "toectl: line A, the leader, won %d of %d" % (won[0], n))
# the two lines are two pipeline streams, each with its own records
tcp = sorted(s["records"] for s in st.get("streams", []) if s.get("kind") == "tcp" and s["bytes"])
check(len(tcp) == 2 and tcp[1] == n and (kill or tcp[0] == n),
      "toectl: the tcp streams carried %s records (expected two streams, %d each%s)" % (tcp, n, ", B fewer" if kill else ""))
# line-down events (TOE_RESET_ARB_SWITCH, reason 4): group 2; the killed line B first, then at most line A's end
switch = [(g, l) for r, g, l in events if r == 4]
if kill:
    check(switch[:1] == [(2, 1)] and switch[1:] in ([], [(2, 0)]),
          "line-down events %s (expected group 2 line 1, then at most line 0's end)" % switch)
else:
    check(all(s[0] == 2 for s in switch), "line-down events %s outside group 2" % switch)
for b in bad:
    print(label + ":", b)
print("%s: %d records, delivered exactly once: line A (toed's connection) %d, line B (mirror) %d; events %s" %
      (label, n, bylines[0], bylines[1], events))
sys.exit(1 if bad else 0)
EOF
	e2e_stop_toed
}

start=$(date +%s)
# line A leads: B's feed starts 2.5 s after its connection, A's 1.5 s after toed's (before the client subscribes)
run plain 1500 2500
# line B leads (A's feed waits 2 s) and is killed 1 s into its feed
run kill 2000 0 1.0
echo "PASS: A/B arbitration of toed's own connection (port 0) and a mirrored one (port 1) in one group ($(($(date +%s) - start)) s)"
exit 0
