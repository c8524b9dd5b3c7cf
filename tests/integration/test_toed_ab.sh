#!/bin/sh
# test_toed_ab.sh - A/B arbitration on real Linux TCP: two lines of one feed, one group, one client.
#
# The exchange namespace runs two toe-feedsim servers (ports 5261 and 5262,
# the same seed: the same records in the same messages, BizIndex per channel
# as SSE numbers it, the generator's default); the vendor namespace connects
# to both (toe-sockrx), so two real TCP connections carry the same feed. toed
# follows both on mirror ports (AF_PACKET) as [feed.a] and [feed.b] of group
# "ab" with [fast] sequence_check = yes. Two layouts (lib_netns.sh's topology
# with a second link, netns_link_mirror):
#
#   exchange ex0 10.31.0.1 <-> ve0 10.31.0.2 vendor, ve0 mirrored -> vm0 <-> vm1 toed port 0
#            ex1 10.31.1.1 <-> ve1 10.31.1.2        ve1 mirrored -> wm0 <-> wm1 toed port 1
#
#   conn    both connections over ex0/ve0, both lines on port 0 (connections
#           on one port are a valid arbitration group);
#   port    one line per port, as on two NICs: line A over ex0/ve0 followed on
#           [port.0] (vm1), line B over ex1/ve1 on [port.1] (wm1).
#
# In each layout a client subscribes to the stream "ab" (toe_sub.stream),
# another to the feed "a" alone; a third asks for "zz" and is refused with the
# daemon's names. Two runs per layout:
#
#   lossy   each line its own impairment (lossy_tc.bpf.c, line mode), on the
#           link (the exchange's egress, ex0 and ex1) and on the mirror leg
#           (vm0 and wm0 egress). On the link: random loss and duplication, A
#           2%/2%, B 1%/3% (the sender's own egress: Linux sends a dropped
#           segment again, so no line loses anything there), and reordering,
#           A 2%, B 3%: a segment delayed through a slow HTB class (no netem
#           here: the pacer scheme of lossy_tc.bpf.c, netns_slow_class at a
#           quarter of the feed's rate, ~7 ms for a 300-byte segment) while
#           later ones overtake it, so the vendor and the mirror see the line
#           out of order. On the mirror leg: duplication (A 3%, B 2%),
#           reordering (A 3%, B 2%, a class twice as fast: the delay stays
#           well under the mirror TOE's 20 ms allowance for an ACK seen before
#           the data it acknowledges) and loss decided by each message's
#           MsgSeqNum (A 7%, B 5% of messages 10..900, and 1.5% on both), so the test computes
#           which messages each line may lose with the same hash in Python
#           (a message that shares a segment with the one before it, after a
#           retransmission or a coalesced send, escapes the hash; the link's
#           losses and reordering make Linux retransmit, and a retransmission
#           often carries several messages), and which ones really started a
#           dropped segment from the program's map of dropped messages
#           (bpf_map_sum, read before the filters go). Checks: every record of
#           the feed reaches the "ab" client exactly once or lies in exactly one
#           TOE_GAP_SEQUENCE range, never both; a record is in a sequence gap
#           exactly when both lines lost its message (the lines' own
#           TOE_GAP_MSG_SEQ records say what each lost, and include the
#           messages its leg dropped, but for one in 20 that a spurious
#           retransmission may carry again); the messages both legs dropped
#           are there (the scenario really loses on both) and are gaps
#           naming the right channel and BizIndex range; a record one line
#           lost was delivered by the other; every record says group 2 and a
#           line; the "a" client only sees line 0; toectl stats --json shows
#           the group's two lines with the records each won, its gaps and
#           missing numbers, and per channel the last sequence, delivered
#           records and gaps, all as the client saw them; toectl clients
#           shows each client's stream. The reordering happened: every slow
#           class the layout's lines cross delayed segments (its counter of
#           packets sent grew), and toed's mirror TOE stored segments of each
#           line out of order (a link loss does that too, until Linux sends
#           the segment again).
#   kill    no impairment; line A's exchange is killed mid-stream (SIGKILL):
#           the client sees a TOE_RESET_ARB_SWITCH naming line 0, line B
#           carries on, every record is delivered exactly once, no sequence gap
#           (line B's own close at the end of the feed is the only other event).
#
# TOE_AB_MODES (default "conn port") picks the layouts.
# Needs root, ip, tc (u32, mirred, bpf, htb), ethtool, clang, libbpf-dev
# headers, python3; exits 77 (SKIP) without them. Run it under
# flock /tmp/toed-itest.lock. Takes about 45 s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
TOED=${TOED:-$(asan_fresh "$BUILD/bin/toed" "$BUILD/asan/bin/toed")}
FEEDSIM=$BUILD/bin/toe-feedsim
SOCKRX=$BUILD/bin/toe-sockrx
TICK=$BUILD/itest/tick_client
TOECTL=$BUILD/bin/toectl
MAPSUM=$BUILD/itest/bpf_map_sum
MODES=${TOE_AB_MODES:-conn port}
PA=5261
PB=5262
RECORDS=4000
RATE=2000
LOSS_FIRST=10
LOSS_LAST=900
DROP_A=70
DROP_B=50
DROP_BOTH=15
# the slow classes: a quarter of the feed's rate (about 90 bytes a record) on the link, twice that on the mirror leg
SLOW_LINK=$((RATE * 90 * 8 / 4))
SLOW_MIRROR=$((SLOW_LINK * 2))

script_needs_root
script_needs_tools ip tc ethtool clang gcc timeout
script_needs_python
script_needs_bpf_headers
script_build "$TOED" "$FEEDSIM" "$SOCKRX" "$TICK" "$TOECTL" "$MAPSUM"

script_workdir toe-ab
chmod 755 "$WORK"
SOCK=$WORK/toed.sock
FAIL_LOG=$WORK/toed.log
. "$here/lib_e2e.sh"

script_netns netns_topology toab$$ 10.31.0
script_netns netns_link_mirror ex1 ve1 10.31.1 wm0 wm1
EX_IP=10.31.0.1
EX2_IP=10.31.1.1

bpf() { # OUT DEFINES...
	_o=$1
	shift
	clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine)" -DLINE_A_PORT=$PA -DLINE_B_PORT=$PB "$@" \
		-c "$here/lossy_tc.bpf.c" -o "$_o" || fail "clang -target bpf $*"
}
# the mirror legs' program, built per lossy run: its map of dropped messages gets a name of this run's
# own (maps of an earlier run may still be on their way out of the kernel)
bpf_mirror() { # MAPNAME
	bpf "$WORK/mirror.o" -DBY_MSGSEQ -DDROP_MAP="$1" -DLOSS_FIRST=$LOSS_FIRST -DLOSS_LAST=$LOSS_LAST -DDROP_A=$DROP_A \
		-DDROP_B=$DROP_B -DDROP_BOTH=$DROP_BOTH -DDUP_A=30 -DDUP_B=20 -DREORDER_A=30 -DREORDER_B=20
}
bpf "$WORK/link.o" -DDROP_A=20 -DDUP_A=20 -DDROP_B=10 -DDUP_B=30 -DREORDER_A=20 -DREORDER_B=30
# the link devices (exchange egress) and the mirror legs (toward toed) of both layouts
LINKS="ex0 ex1"
LEGS="vm0 wm0"
for d in $LINKS; do script_netns netns_slow_class "$NS_EX" "$d" $SLOW_LINK; done
for d in $LEGS; do script_netns netns_slow_class "$NS_VE" "$d" $SLOW_MIRROR; done

# start_toed MODE: feeds a and b of group ab; port: b on [port.1] (wm1), from the second link's exchange
start_toed() {
	exb=$EX_IP
	[ "$1" = port ] && exb=$EX2_IP
	{
		printf '[source]\ntype = af_packet\ninterface = vm1\n\n'
		[ "$1" = port ] && printf '[port.1]\ninterface = wm1\n\n'
		printf '[feed.a]\nexchange = %s:%s\ngroup = ab\n\n' "$EX_IP" $PA
		printf '[feed.b]\nexchange = %s:%s\ngroup = ab\n' "$exb" $PB
		[ "$1" = port ] && printf 'port = 1\n'
		cat <<EOF

[tcp]
connections = 8
window = 1M
# a retransmission after a link loss comes within this; mirror-leg losses are known at once from the ACKs
gap_timeout_ms = 2000

[fast]
templates = $TEMPLATES
sequence_check = yes
# longer than the lag between the two lines
arbitration_wait_us = 300000

EOF
		e2e_conf_tail
	} >"$WORK/toed.conf"
	e2e_run_toed "$NS_MI" || fail "$1: toed exited before it was ready"
}

# clients NAME: the group's client and feed a's, subscribed before the feed starts
clients() {
	w=$WORK/$1
	"$TICK" --socket "$SOCK" --stream ab --from-start --brief --idle-ms 2500 --timeout 40 --ready "$w.ab.ready" \
		-o "$w.ab" 2>"$w.ab.err" &
	p_ab=$!
	"$TICK" --socket "$SOCK" --stream a --from-start --brief --idle-ms 2500 --timeout 40 --ready "$w.a.ready" \
		-o "$w.a" 2>"$w.a.err" &
	p_a=$!
	pids="$pids $p_ab $p_a"
	for c in ab a; do
		wait_file "$w.$c.ready" 10 || fail "$1: client $c did not subscribe: $(cat "$w.$c.err")"
	done
}

# feeds MODE NAME [KILL-A-AFTER-S]: both lines, same seed; the vendor connects to both
feeds() {
	w=$WORK/$2
	for l in A B; do
		ip=$EX_IP port=$PA
		[ $l = B ] && port=$PB
		[ $l = B ] && [ "$1" = port ] && ip=$EX2_IP
		ip netns exec "$NS_EX" "$FEEDSIM" --templates "$TEMPLATES" --listen "$ip:$port" --records $RECORDS \
			--seed 7 --rate $RATE --truth "$w.truth.$l" --wait-ms 20000 2>"$w.feedsim.$l" &
		eval "p_fs$l=\$!"
		eval "addr$l=$ip:$port"
	done
	sleep 0.2
	for l in A B; do
		eval "addr=\$addr$l"
		# shellcheck disable=SC2154 # addr: set by eval
		ip netns exec "$NS_VE" timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect "$addr" \
			--wait-ms 20000 2>"$w.sockrx.$l" &
		eval "p_rx$l=\$!"
	done
	# shellcheck disable=SC2154 # set by eval above
	pids="$pids $p_fsA $p_fsB $p_rxA $p_rxB"
	if [ -n "${3:-}" ]; then
		sleep "$3"
		kill -KILL "$p_fsA"
		wait "$p_fsA" 2>/dev/null
	else
		wait "$p_fsA" || fail "$2: toe-feedsim A failed: $(cat "$w.feedsim.A")"
	fi
	wait "$p_fsB" || fail "$2: toe-feedsim B failed: $(cat "$w.feedsim.B")"
	# the mirror TOE's connections as the feeds ended (a closed one lingers 2 s, then its slot is free)
	"$TOECTL" -s "$SOCK" stats --json >"$w.end.json" || fail "$2: toectl stats"
	wait "$p_rxB" || fail "$2: the vendor of line B failed: $(cat "$w.sockrx.B")"
	wait "$p_rxA" 2>/dev/null
	wait "$p_ab"
	wait "$p_a"
	[ "$(wc -l <"$w.truth.B")" = $RECORDS ] || fail "$2: line B's truth has $(wc -l <"$w.truth.B") records"
}

impair() { # on|off
	for d in $LINKS; do
		if [ "$1" = on ]; then script_netns netns_impair "$NS_EX" "$d" "$WORK/link.o"; else netns_impair_off "$NS_EX" "$d"; fi
	done
	for d in $LEGS; do
		if [ "$1" = on ]; then script_netns netns_impair "$NS_VE" "$d" "$WORK/mirror.o"; else netns_impair_off "$NS_VE" "$d"; fi
	done
}

# slow_sent: "DEV=N ..." packets each slow class sent so far (pacers included)
slow_sent() {
	for d in $LINKS; do printf '%s=%s ' "$d" "$(netns_slow_sent "$NS_EX" "$d")"; done
	for d in $LEGS; do printf '%s=%s ' "$d" "$(netns_slow_sent "$NS_VE" "$d")"; done
}

# ---- lossy: each line its own loss, duplication and reordering ------------------------------------
run_lossy() { # MODE
	name=$1-lossy
	start_toed "$1"
	# a name the daemon does not have is refused, naming the ones it has
	"$TICK" --socket "$SOCK" --stream zz --brief --timeout 2 >/dev/null 2>"$WORK/zz.err" && fail "stream zz was accepted"
	grep -q "no stream named zz; streams: a, b, ab" "$WORK/zz.err" || fail "stream zz: $(cat "$WORK/zz.err")"
	clients "$name"
	"$TOECTL" -s "$SOCK" clients --json >"$WORK/$name.clients.json" || fail "toectl clients"
	# shellcheck disable=SC2154 # p_ab, p_a: set by clients
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); s={c['pid']: c['stream'] for c in d}; \
sys.exit(0 if (s.get($p_ab), s.get($p_a)) == ('ab', 'a') else 1)" "$WORK/$name.clients.json" ||
		fail "toectl clients does not show the streams ab and a: $(cat "$WORK/$name.clients.json")"
	sent0=$(slow_sent)
	map=ld$$$1 # at most 15 characters
	bpf_mirror "$map"
	impair on
	feeds "$1" "$name"
	# the messages that started a segment the mirror legs dropped, read while the filters are attached
	"$MAPSUM" "$map" >"$WORK/$name.dropped" 2>"$WORK/$name.dropped.err" ||
		fail "$name: bpf_map_sum: $(cat "$WORK/$name.dropped.err")"
	impair off
	sent1=$(slow_sent)
	# every slow class this layout's lines go through delayed segments (line B: ex1, wm0 in the port layout)
	devs="ex0 vm0"
	[ "$1" = port ] && devs="ex0 vm0 ex1 wm0"
	delayed=
	for d in $devs; do
		a=$(echo "$sent0" | tr ' ' '\n' | sed -n "s/^$d=//p")
		b=$(echo "$sent1" | tr ' ' '\n' | sed -n "s/^$d=//p")
		[ "${b:-0}" -gt "${a:-0}" ] || fail "$name: nothing delayed through the slow class of $d ($sent0 -> $sent1)"
		delayed="$delayed $d $((b - a))"
	done
	cmp -s "$WORK/$name.truth.A" "$WORK/$name.truth.B" || fail "$name: the two lines did not carry the same feed"
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$name.stats.json" || fail "$name: toectl stats"
	"$PY" - "$WORK/$name" $LOSS_FIRST $LOSS_LAST $DROP_A $DROP_B "$name" $DROP_BOTH <<'EOF' || fail "$name: see above"
import json, sys
w, first, last, drop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), (int(sys.argv[4]), int(sys.argv[5]))
label, drop_both = sys.argv[6], int(sys.argv[7])
def h(m, line):  # lossy_tc.bpf.c line_hash (line 2: the draw both lines share)
    x = (m * (2654435761, 2246822519, 3266489917)[line]) & 0xffffffff
    x ^= x >> 15
    return x % 1000
recs, msg_of = [], {}
for t in map(json.loads, open(w + ".truth.A")):
    ch = t.get("TradeChannel", t.get("OrderChannel"))
    recs.append((ch, t["BizIndex"]))
    msg_of[(ch, t["BizIndex"])] = t["msg_seq"]
nmsg = max(msg_of.values())
delivered, dline, ingap, lost, bad = {}, {}, {}, ([set(), set()]), []
groups = set()
for ln in open(w + ".ab"):
    f = ln.split()
    if f[0] in "TO":
        k = (int(f[1]), int(f[2]))
        delivered[k] = delivered.get(k, 0) + 1
        dline[k] = int(f[4])
        groups.add(int(f[3]))
    elif f[0] == "G":
        reason, ch, a, b, g, line = map(int, f[1:7])
        groups.add(g)
        if reason == 7:
            for s in range(a, b + 1):
                ingap[(ch, s)] = ingap.get((ch, s), 0) + 1
        elif reason == 8:
            lost[line].update(range(a, b + 1))
    elif f[0] == "X":
        groups.add(int(f[2]))
hashdrop = [{m for m in range(first, min(last, nmsg) + 1) if h(m, L) < drop[L] or h(m, 2) < drop_both} for L in (0, 1)]
# what the mirror legs really dropped: the messages that started a dropped segment (bpf_map_sum of its map)
dropped = [set(), set()]
for ln in open(w + ".dropped"):
    key = int(ln.split()[0])
    dropped[key // (last + 1)].add(key % (last + 1))
both = dropped[0] & dropped[1]
def check(cond, what):
    if not cond:
        bad.append(what)
wrong_once = [k for k in recs if delivered.get(k, 0) + ingap.get(k, 0) != 1]
check(not wrong_once, "%d records not exactly once delivered-or-gapped, e.g. %s" % (len(wrong_once), wrong_once[:5]))
wrong_gap = [k for k in recs if (k in ingap) != (msg_of[k] in lost[0] and msg_of[k] in lost[1])]
check(not wrong_gap, "%d records gapped other than when both lines lost them, e.g. %s" % (len(wrong_gap), wrong_gap[:5]))
for L in (0, 1):
    check(dropped[L] <= hashdrop[L], "line %d: the mirror leg dropped messages outside the hash: %s" %
          (L, sorted(dropped[L] - hashdrop[L])[:10]))
    # a message that started a dropped segment is lost to that line, unless a spurious retransmission that
    # starts with an earlier message carries it again (the sender missed the vendor's ACK in time): one in 20
    miss = dropped[L] - lost[L]
    check(len(miss) * 20 <= len(dropped[L]), "line %d: messages dropped on its mirror leg but not reported lost: %s" %
          (L, sorted(miss)[:10]))
wrong_line = [k for k in delivered if (msg_of.get(k) in lost[0] and dline[k] != 1) or
              (msg_of.get(k) in lost[1] and dline[k] != 0)]
check(not wrong_line, "%d records delivered by a line that lost them, e.g. %s" % (len(wrong_line), wrong_line[:5]))
check(not [k for k in delivered if k not in msg_of], "records outside the feed")
check(not [k for k in ingap if k not in msg_of], "sequence gaps name numbers outside the feed")
check(len(both) > 0, "the mirror legs dropped no message on both lines")
both &= lost[0] & lost[1]
both_recs = [k for k in recs if msg_of[k] in both]
check(both_recs and all(k in ingap for k in both_recs), "a message both lines lost is not a sequence gap")
check(groups == {2}, "records of groups %s (expected only 2)" % sorted(groups))
# the client of feed a: line 0 only, its records and its events
lines_a = {int(l.split()[4]) for l in open(w + ".a") if l[0] in "TO"} | \
          {int(l.split()[6]) for l in open(w + ".a") if l[0] == "G"}
check(lines_a == {0}, "feed a's client saw lines %s" % sorted(lines_a))
n_a = sum(1 for l in open(w + ".a") if l[0] in "TO")
n_a0 = sum(1 for k in delivered if dline[k] == 0)
check(n_a == n_a0, "feed a's client got %d records, line 0 delivered %d" % (n_a, n_a0))
# toectl stats: the group's lines and channels as the client saw them
st = json.load(open(w + ".stats.json"))
grp = [g for g in st.get("sequence_groups", []) if g.get("name") == "ab"]
check(len(grp) == 1, "toectl stats has no sequence group ab")
if grp:
    g = grp[0]
    check(g["lines"] == 2, "toectl: group ab has %s lines" % g["lines"])
    check(g["line0.won"] == n_a0 and g["line1.won"] == len(delivered) - n_a0,
          "toectl: lines won %d and %d, the client got %d and %d" %
          (g["line0.won"], g["line1.won"], n_a0, len(delivered) - n_a0))
    ngaps = sum(1 for l in open(w + ".ab") if l.startswith("G 7 "))
    check(g["gaps"] == ngaps and g["missing"] == len(ingap),
          "toectl: %d gaps missing %d, the client saw %d gaps over %d records" % (g["gaps"], g["missing"], ngaps, len(ingap)))
    last = {}
    for ch, b in recs:
        last[ch] = max(last.get(ch, 0), b)
    chans = {c["channel"]: c for c in g["channels"]}
    check(sorted(chans) == sorted(last), "toectl: channels %s, the feed has %s" % (sorted(chans), sorted(last)))
    check(all(chans[c]["last"] == last[c] for c in last if c in chans), "toectl: a channel's last sequence is wrong")
    check(sum(c["delivered"] for c in chans.values()) == len(delivered), "toectl: channels delivered != the client's")
    check(sum(c["gaps"] for c in chans.values()) == ngaps, "toectl: channels' gaps != the client's")
    check(g["line0.dups"] + g["line1.dups"] > 0, "toectl: no copy dropped")
# reordering: toed's mirror TOE stored segments of each line out of order (stats taken as the feeds ended,
# while the closed connections still linger)
ooo = [0, 0]
for c in json.load(open(w + ".end.json")).get("connections", []):
    if c.get("feed") in ("a", "b"):
        ooo["ab".index(c["feed"])] += c["out_of_order"]
check(ooo[0] > 0 and ooo[1] > 0, "toed saw no segment out of order on line %s" % ("A" if not ooo[0] else "B"))
for b in bad:
    print(label + ":", b)
print(label + ": %d records, %d delivered (line 0: %d, line 1: %d), %d in sequence gaps; messages lost: line A %d "
      "(dropped %d, %d by the hash), line B %d (%d, %d), both %d (%d); segments out of order at toed: A %d, B %d" %
      (len(recs), len(delivered), n_a0, len(delivered) - n_a0, len(ingap), len(lost[0]), len(dropped[0]),
       len(hashdrop[0]), len(lost[1]), len(dropped[1]), len(hashdrop[1]), len(lost[0] & lost[1]), len(both),
       ooo[0], ooo[1]))
sys.exit(1 if bad else 0)
EOF
	e2e_stop_toed
	echo "== $name: packets through the slow classes (a pacer and a delayed segment each time):$delayed"
}

# ---- kill: line A's exchange dies mid-stream ----------------------------------------------------
run_kill() { # MODE
	name=$1-kill
	start_toed "$1"
	clients "$name"
	feeds "$1" "$name" 0.8
	"$PY" - "$WORK/$name" "$name" <<'EOF' || fail "$name: see above"
import json, sys
w, label = sys.argv[1], sys.argv[2]
recs = [(t.get("TradeChannel", t.get("OrderChannel")), t["BizIndex"]) for t in map(json.loads, open(w + ".truth.B"))]
got, line_after, switch, seqgaps, bad = {}, set(), [], 0, []
for ln in open(w + ".ab"):
    f = ln.split()
    if f[0] in "TO":
        k = (int(f[1]), int(f[2]))
        got[k] = got.get(k, 0) + 1
        if switch:
            line_after.add(int(f[4]))
    elif f[0] == "X" and f[1] == "4":
        switch.append((int(f[2]), int(f[3])))
    elif f[0] == "G" and f[1] == "7":
        seqgaps += 1
once = sum(1 for k in recs if got.get(k) == 1)
if once != len(recs) or len(got) != len(recs):
    bad.append("%d of %d records delivered exactly once (%d distinct)" % (once, len(recs), len(got)))
# line A goes first; line B's own end of feed (its FIN) may follow once everything was delivered
if switch[:1] != [(2, 0)] or switch[1:] not in ([], [(2, 1)]):
    bad.append("line-down events %s (expected group 2 line 0, then at most line 1's end)" % switch)
if line_after != {1}:
    bad.append("records after the line went down came from lines %s" % sorted(line_after))
if seqgaps:
    bad.append("%d sequence gaps" % seqgaps)
for b in bad:
    print(label + ":", b)
print(label + ": %d records, all exactly once; line A went down (group 2 line 0 reset), line B delivered the rest" %
      len(recs) if not bad else label + ": failed")
sys.exit(1 if bad else 0)
EOF
	e2e_stop_toed
}

start=$(date +%s)
for mode in $MODES; do
	case $mode in
	conn | port) ;;
	*) fail "TOE_AB_MODES: no layout $mode (conn, port)" ;;
	esac
	t0=$(date +%s)
	run_lossy "$mode"
	run_kill "$mode"
	echo "== $mode: lossy and kill passed ($(($(date +%s) - t0)) s)"
done
echo "PASS: A/B arbitration of two TCP lines in one group, layouts: $MODES ($(($(date +%s) - start)) s)"
exit 0
