#!/bin/sh
# test_toed_ab.sh - A/B arbitration on real Linux TCP: two lines of one feed, one group, one client.
#
# The exchange namespace runs two toe-feedsim servers (ports 5261 and 5262,
# the same seed: the same records in the same messages, BizIndex per channel
# as SSE numbers it); the vendor namespace connects to both (toe-sockrx), so
# two real TCP connections carry the same feed. toed follows both on the
# mirror port (AF_PACKET) as [feed.a] and [feed.b] of group "ab" with
# [fast] sequence_check = yes; both connections are on port 0 (connections
# on one port are a valid arbitration group). A client subscribes to the
# stream "ab" (toe_sub.stream), another to the feed "a" alone; a third
# asks for "zz" and is refused with the daemon's names.
#
#   lossy   each line its own impairment (lossy_tc.bpf.c, line mode): on the
#           link (exchange egress) random loss and duplication, A 2%/2%,
#           B 1%/3% (Linux retransmits: no line loses anything there); on the
#           mirror leg (vm0 egress) duplication (A 3%, B 2%) and loss decided
#           by each message's MsgSeqNum (A 7%, B 5% of messages 10..900), so
#           the test computes which messages each line lost, and which both
#           lost, with the same hash in Python (a message that shares a
#           segment with the one before it, after a retransmission or a
#           coalesced send, escapes the hash: at most a tenth may). Checks: every record of the
#           feed reaches the "ab" client exactly once or lies in exactly one
#           TOE_GAP_SEQUENCE range, never both; a record is in a sequence gap
#           exactly when both lines lost its message (the lines' own
#           TOE_GAP_MSG_SEQ records say what each lost, and include the
#           messages the hash dropped); the messages both lines lost per the
#           hash are there (the scenario really loses on both) and are gaps
#           naming the right channel and BizIndex range; a record one line
#           lost was delivered by the other; every record says group 2 and a
#           line; the "a" client only sees line 0; toectl stats --json shows
#           the group's two lines with the records each won, its gaps and
#           missing numbers, and per channel the last sequence, delivered
#           records and gaps, all as the client saw them; toectl clients
#           shows each client's stream.
#   kill    no impairment; line A's exchange is killed mid-stream (SIGKILL):
#           the client sees a TOE_RESET_ARB_SWITCH naming line 0, line B
#           carries on, every record is delivered exactly once, no sequence gap
#           (line B's own close at the end of the feed is the only other event).
#
# Needs root, ip, tc (u32, mirred, bpf), ethtool, clang, libbpf-dev headers,
# python3; exits 77 (SKIP) without them. Run it under flock /tmp/toed-itest.lock.
# Takes about 20 s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
TOED=${TOED:-$BUILD/bin/toed}
[ -x "$BUILD/asan/bin/toed" ] && [ ! "$BUILD/asan/bin/toed" -ot "$BUILD/bin/toed" ] && TOED=$BUILD/asan/bin/toed
FEEDSIM=$BUILD/bin/toe-feedsim
SOCKRX=$BUILD/bin/toe-sockrx
TICK=$BUILD/itest/tick_client
TOECTL=$BUILD/bin/toectl
PA=5261
PB=5262
RECORDS=4000
RATE=2000
LOSS_FIRST=10
LOSS_LAST=900
DROP_A=70
DROP_B=50

script_needs_root
script_needs_tools ip tc ethtool clang gcc timeout
script_needs_python
script_needs_bpf_headers
need="$TOED $FEEDSIM $SOCKRX $TICK $TOECTL"
missing=
for f in $need; do
	[ -x "$f" ] || missing="$missing $f"
done
# shellcheck disable=SC2086
[ -z "$missing" ] || make -s BUILD="$BUILD" $missing >/dev/null 2>&1 || skip "cannot build:$missing"

script_workdir toe-ab
chmod 755 "$WORK"
SOCK=$WORK/toed.sock

fail() {
	echo "FAIL: $*"
	if [ -f "$WORK/toed.log" ]; then
		echo "--- toed log (last 20 lines):"
		tail -n 20 "$WORK/toed.log"
	fi
	exit 1
}

script_netns netns_topology toab$$ 10.31.0
EX_IP=10.31.0.1

bpf() { # OUT DEFINES...
	_o=$1
	shift
	clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine)" -DLINE_A_PORT=$PA -DLINE_B_PORT=$PB "$@" \
		-c "$here/lossy_tc.bpf.c" -o "$_o" || fail "clang -target bpf $*"
}
bpf "$WORK/mirror.o" -DBY_MSGSEQ -DLOSS_FIRST=$LOSS_FIRST -DLOSS_LAST=$LOSS_LAST -DDROP_A=$DROP_A -DDROP_B=$DROP_B \
	-DDUP_A=30 -DDUP_B=20
bpf "$WORK/link.o" -DDROP_A=20 -DDUP_A=20 -DDROP_B=10 -DDUP_B=30

wait_for() { # FILE PATTERN SECONDS
	_w=$(($3 * 20))
	while [ $_w -gt 0 ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		_w=$((_w - 1))
	done
	return 1
}

start_toed() {
	cat >"$WORK/toed.conf" <<EOF
[source]
type = af_packet
interface = vm1

[feed.a]
exchange = $EX_IP:$PA
group = ab

[feed.b]
exchange = $EX_IP:$PB
group = ab

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

[shm]
hugepages = off
socket = $SOCK

[log]
target = stderr
level = info
EOF
	: >"$WORK/toed.log"
	ip netns exec "$NS_MI" "$TOED" -c "$WORK/toed.conf" --foreground >>"$WORK/toed.log" 2>&1 &
	TOED_PID=$!
	wait_for "$WORK/toed.log" 'notice: ready' 15 || fail "toed did not become ready"
}

stop_toed() {
	kill -TERM "$TOED_PID"
	_i=0
	while kill -0 "$TOED_PID" 2>/dev/null && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	wait "$TOED_PID"
	_rc=$?
	TOED_PID=
	[ $_rc -eq 0 ] || fail "toed exited $_rc"
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
		_i=0
		while [ ! -e "$w.$c.ready" ] && [ $_i -lt 200 ]; do
			sleep 0.05
			_i=$((_i + 1))
		done
		[ -e "$w.$c.ready" ] || fail "$1: client $c did not subscribe: $(cat "$w.$c.err")"
	done
}

# feeds NAME [KILL-A-AFTER-S]: both lines, same seed; the vendor connects to both
feeds() {
	w=$WORK/$1
	for l in A B; do
		port=$PA
		[ $l = B ] && port=$PB
		ip netns exec "$NS_EX" "$FEEDSIM" --templates "$TEMPLATES" --listen "$EX_IP:$port" --records $RECORDS \
			--seed 7 --rate $RATE --biz-per-channel --truth "$w.truth.$l" --wait-ms 20000 2>"$w.feedsim.$l" &
		eval "p_fs$l=\$!"
	done
	sleep 0.2
	for l in A B; do
		port=$PA
		[ $l = B ] && port=$PB
		ip netns exec "$NS_VE" timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect "$EX_IP:$port" \
			--wait-ms 20000 2>"$w.sockrx.$l" &
		eval "p_rx$l=\$!"
	done
	# shellcheck disable=SC2154 # set by eval above
	pids="$pids $p_fsA $p_fsB $p_rxA $p_rxB"
	if [ -n "${2:-}" ]; then
		sleep "$2"
		kill -KILL "$p_fsA"
		wait "$p_fsA" 2>/dev/null
	else
		wait "$p_fsA" || fail "$1: toe-feedsim A failed: $(cat "$w.feedsim.A")"
	fi
	wait "$p_fsB" || fail "$1: toe-feedsim B failed: $(cat "$w.feedsim.B")"
	wait "$p_rxB" || fail "$1: the vendor of line B failed: $(cat "$w.sockrx.B")"
	wait "$p_rxA" 2>/dev/null
	wait "$p_ab"
	wait "$p_a"
	[ "$(wc -l <"$w.truth.B")" = $RECORDS ] || fail "$1: line B's truth has $(wc -l <"$w.truth.B") records"
}

start=$(date +%s)

# ---- lossy: each line its own impairment ------------------------------------------------------
start_toed
# a name the daemon does not have is refused, naming the ones it has
"$TICK" --socket "$SOCK" --stream zz --brief --timeout 2 >/dev/null 2>"$WORK/zz.err" && fail "stream zz was accepted"
grep -q "no stream named zz; streams: a, b, ab" "$WORK/zz.err" || fail "stream zz: $(cat "$WORK/zz.err")"
clients lossy
"$TOECTL" -s "$SOCK" clients --json >"$WORK/lossy.clients.json" || fail "toectl clients"
# shellcheck disable=SC2154 # p_ab, p_a: set by clients
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); s={c['pid']: c['stream'] for c in d}; \
sys.exit(0 if (s.get($p_ab), s.get($p_a)) == ('ab', 'a') else 1)" "$WORK/lossy.clients.json" ||
	fail "toectl clients does not show the streams ab and a: $(cat "$WORK/lossy.clients.json")"
script_netns netns_impair "$NS_EX" ex0 "$WORK/link.o"
script_netns netns_impair "$NS_VE" vm0 "$WORK/mirror.o"
feeds lossy
netns_impair_off "$NS_EX" ex0
netns_impair_off "$NS_VE" vm0
cmp -s "$WORK/lossy.truth.A" "$WORK/lossy.truth.B" || fail "lossy: the two lines did not carry the same feed"
"$TOECTL" -s "$SOCK" stats --json >"$WORK/lossy.stats.json" || fail "lossy: toectl stats"
"$PY" - "$WORK/lossy" $LOSS_FIRST $LOSS_LAST $DROP_A $DROP_B <<'EOF' || fail "lossy: see above"
import json, sys
w, first, last, drop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), (int(sys.argv[4]), int(sys.argv[5]))
def h(m, line):  # lossy_tc.bpf.c line_hash
    x = (m * (2246822519 if line else 2654435761)) & 0xffffffff
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
hashdrop = [{m for m in range(first, min(last, nmsg) + 1) if h(m, L) < drop[L]} for L in (0, 1)]
both = hashdrop[0] & hashdrop[1]
def check(cond, what):
    if not cond:
        bad.append(what)
wrong_once = [k for k in recs if delivered.get(k, 0) + ingap.get(k, 0) != 1]
check(not wrong_once, "%d records not exactly once delivered-or-gapped, e.g. %s" % (len(wrong_once), wrong_once[:5]))
wrong_gap = [k for k in recs if (k in ingap) != (msg_of[k] in lost[0] and msg_of[k] in lost[1])]
check(not wrong_gap, "%d records gapped other than when both lines lost them, e.g. %s" % (len(wrong_gap), wrong_gap[:5]))
for L in (0, 1):
    # the hash decides by the message a segment starts with: one that shared its segment with the message
    # before it (a retransmission after a link loss, a coalesced send) escapes, a few at most
    miss = hashdrop[L] - lost[L]
    check(len(miss) * 10 <= len(hashdrop[L]), "line %d: messages dropped on its mirror leg but not reported lost: %s" %
          (L, sorted(miss)[:10]))
wrong_line = [k for k in delivered if (msg_of.get(k) in lost[0] and dline[k] != 1) or
              (msg_of.get(k) in lost[1] and dline[k] != 0)]
check(not wrong_line, "%d records delivered by a line that lost them, e.g. %s" % (len(wrong_line), wrong_line[:5]))
check(not [k for k in delivered if k not in msg_of], "records outside the feed")
check(not [k for k in ingap if k not in msg_of], "sequence gaps name numbers outside the feed")
check(len(both) > 0, "the hash made no message lost on both lines")
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
for b in bad:
    print("lossy:", b)
print("lossy: %d records, %d delivered (line 0: %d, line 1: %d), %d in sequence gaps; messages lost: line A %d "
      "(%d by the hash), line B %d (%d), both %d (%d)" %
      (len(recs), len(delivered), n_a0, len(delivered) - n_a0, len(ingap), len(lost[0]), len(hashdrop[0]),
       len(lost[1]), len(hashdrop[1]), len(lost[0] & lost[1]), len(both)))
sys.exit(1 if bad else 0)
EOF
stop_toed

# ---- kill: line A's exchange dies mid-stream ----------------------------------------------------
start_toed
clients kill
feeds kill 0.8
"$PY" - "$WORK/kill" <<'EOF' || fail "kill: see above"
import json, sys
w = sys.argv[1]
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
    print("kill:", b)
print("kill: %d records, all exactly once; line A went down (group 2 line 0 reset), line B delivered the rest" %
      len(recs) if not bad else "kill: failed")
sys.exit(1 if bad else 0)
EOF
stop_toed
echo "PASS: A/B arbitration of two TCP lines in one group ($(($(date +%s) - start)) s)"
exit 0
