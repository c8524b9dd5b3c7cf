#!/bin/sh
# test_toed_replay.sh - a pcap replayed through toed into clients with different filters, against the truth.
#
# toe-fastgen writes a STEP feed and its ground truth (JSON lines); mkpcap
# turns the feed into a capture of a TCP connection (tests/lib/pktbuild);
# toed replays it (software backend, source type pcap) and clients subscribe
# with filters. Each client prints what it received in the truth's own
# format, so the check is an exact comparison with the truth lines the
# filter keeps:
#   1. in-order TCP: trades only | orders of channels 2 and 3 | one security;
#      every record says the capture's time stamped it (toe_rx_clock);
#   2. reordered segments (pairs swapped), captured as tcpdump -i any on
#      Debian 12 writes (Linux cooked SLL2) and saved as pcapng: the same
#      ticks, nothing lost;
#   3. the feed as UDP datagrams ([feed] protocol = udp);
#   4. a lossy capture (every 15th segment missing): gap records reach the
#      clients and every tick received is a truth line, in order (none from
#      damaged bytes), fewer than the truth.
# Needs no root. Takes about 10 s.
. "$(dirname "$0")/toed_common.sh"

mkfeed 3000 11 --fin
sec=$(grep -m1 -o '"SecurityID":"[0-9]*"' "$TMP/truth.jsonl" | cut -d'"' -f4)
truth_filter trades >"$TMP/want.trades"
truth_filter orders-ch:2,3 >"$TMP/want.orders23"
truth_filter "sec:$sec" >"$TMP/want.sec"
for f in trades orders23 sec; do
	[ -s "$TMP/want.$f" ] || fail "empty truth selection $f"
done

client() { # NAME COUNT [filter options]
	name=$1 count=$2
	shift 2
	"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --count "$count" --timeout 20 "$@" \
		-o "$TMP/got.$name" 2>>"$TMP/clients.log" &
	eval "pid_$name=$!"
	bg_pid $!
}

check() { # NAME: wait for the client and compare with want.NAME
	eval "p=\$pid_$1"
	wait "$p"
	rc=$?
	[ $rc -eq 0 ] || fail "client $1 exited $rc ($(tail -n 2 "$TMP/clients.log"))"
	cmp -s "$TMP/got.$1" "$TMP/want.$1" || {
		diff "$TMP/got.$1" "$TMP/want.$1" | head -n 6
		fail "client $1: received ticks differ from the truth"
	}
}

run_three() { # LABEL: three clients against the running daemon
	client trades "$(wc -l <"$TMP/want.trades")" --types trade
	client orders23 "$(wc -l <"$TMP/want.orders23")" --types order --channel 2 --channel 3
	client sec "$(wc -l <"$TMP/want.sec")" --types trade,order --security "$sec"
	check trades
	check orders23
	check sec
	say "$1: $(wc -l <"$TMP/want.trades") trades, $(wc -l <"$TMP/want.orders23") orders (ch 2,3), $(wc -l <"$TMP/want.sec") ticks of $sec: equal to the truth"
}

start_notify
conf "$TMP/toed.conf"

# ---- 1. in order
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1"
run_three "in-order TCP"
# a replay's records are stamped with the capture's times, and say so (toe_rx_clock)
grep -q '^CLOCKS' "$TMP/clients.log" || fail "the clients printed no CLOCKS line"
if grep '^CLOCKS' "$TMP/clients.log" | grep -qv '^CLOCKS unknown=0 nic=0 kernel=0 poll=0 capture=[0-9]* card=0$'; then
	fail "records of a pcap replay not marked as stamped by the capture: $(grep '^CLOCKS' "$TMP/clients.log")"
fi
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"

# ---- 2. reordered
"$OUT/mkpcap" --fin --swap-every 3 --link sll2 --pcapng "$TMP/feed.step" "$TMP/feed.pcap" >/dev/null ||
	fail "mkpcap (reorder)"
start_notify
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (reorder)"
run_three "reordered TCP"
stop_toed

# ---- 3. UDP datagrams
"$OUT/mkpcap" --udp "$TMP/feed.step" "$TMP/feed.pcap" >/dev/null || fail "mkpcap (udp)"
conf "$TMP/udp.conf"
sed -i 's/^exchange = 10.1.0.10:5261/protocol = udp\nvendor = *:40001/' "$TMP/udp.conf"
start_notify
start_toed "$TMP/udp.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (udp)"
run_three "UDP datagrams"
stop_toed

# ---- 4. loss
"$OUT/mkpcap" --fin --drop-every 15 "$TMP/feed.step" "$TMP/feed.pcap" >/dev/null || fail "mkpcap (loss)"
start_notify
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (loss)"
"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --idle-ms 1500 --timeout 20 -o "$TMP/got.loss" \
	2>>"$TMP/clients.log" || fail "lossy run: client failed"
stop_toed
gaps=$(grep -c '"event":"gap"' "$TMP/got.loss")
grep -v '"event"' "$TMP/got.loss" >"$TMP/got.loss.ticks"
got=$(wc -l <"$TMP/got.loss.ticks")
all=$(wc -l <"$TMP/truth.jsonl")
[ "$gaps" -ge 1 ] || fail "no gap record although segments were missing"
[ "$got" -gt 0 ] && [ "$got" -lt "$all" ] || fail "lossy run: $got ticks of $all"
# every tick is a truth line, and they come in the truth's order
awk 'NR == FNR { pos[$0] = FNR; next }
	!($0 in pos) { print "not in the truth: " $0; bad = 1; exit }
	pos[$0] <= last { print "out of order: " $0; bad = 1; exit }
	{ last = pos[$0] }
	END { exit bad }' "$TMP/truth.jsonl" "$TMP/got.loss.ticks" || fail "lossy run: a tick that is not in the truth"
say "lossy TCP: $gaps gap records, $got of $all ticks, each a truth line, in order"

echo "PASS: pcap replay end to end into filtered clients equals the truth"
exit 0
