#!/bin/sh
# test_toed_card.sh - toed with [device] backend = xrt: the card path end to end on the fake card, and without a card.
#
# There is no U50 here. The test program toed_test (toed's main with test
# options, tests/integration/toed_test.c) takes --test-fake-card CAPTURE: the
# card backend (daemon/card/card_backend.c: xclbin checks, programming, the
# HBM ring and its syncs) then runs against the fake card of the test library
# (tests/lib/card_fake.c, which runs the kernels' C code and keeps separate
# device and host copies of the ring), fed with the capture's frames. The
# xclbin is a metadata-only one generated from XRT's xclbin.h (xrt_mkxclbin).
# Checks:
#   1. one capture (toe-fastgen feed, reordered TCP segments) replayed by the
#      software backend and fed to the card: two clients each (trades of the
#      stream "sse" by name; everything, events included) receive exactly the
#      same lines from both backends, and the ticks equal toe-fastgen's truth
#      (the card's records are tagged with their feed too);
#   2. toectl stats shows the card's counters as a block (frames = the
#      capture's frames, records written to the ring = records the
#      unfiltered client received = records the host drained, link up);
#      toectl status says backend xrt, link up;
#   3. a card that fails at run time (--test-fake-card-fail): the error
#      is logged in one line and toed exits 1;
#   4. backend = xrt on this machine without a card: one error line naming
#      the BDF, exit 1, no crash; --check-config passes the same file and
#      refuses a configuration beyond the card (128 connections): exit 78;
#   5. four ports: [port.1] and [port.3] with feeds refused with the 100G
#      xclbin (exit 78, naming the port) and accepted with a 4 x 10G one
#      (xrt_mkxclbin 4x10g); role = tcp on port 3 refused; on the fake card
#      the 4 x 10G xclbin comes up with ports 1 and 3 programmed; a feed on
#      port 1 with the capture arriving there (--test-fake-card-port 1):
#      the clients get the truth, eth_rx_top_2 counts the frames;
#   6. role = tcp on the card: toed programs gtoe_top (connection table entry
#      from [feed.sse] and [port.0]; role TCP on eth_rx_top; the fake card
#      checks gtoe_top's words on APPLY) and toectl stats shows the connection
#      as gtoe_top's state window has it (the fake's entry 0 set established
#      by --test-fake-gtoe-up) in the software backend's format, with the
#      feed's own mss and window (feed_mss, feed_window); a feed window too
#      large for the card's buffers refused by --check-config (exit 78);
#      --check-config passes it, open = accept and session keys with it; the
#      STEP session over the card: the fake's entry 0 up and a session server
#      answering through it (--test-fake-exchange): logged on (the Logon through
#      the TX mailbox, the answer through fast_top's session records and the
#      ring), toectl shows it, toed's Logout at stop answered and the
#      connection closed. (The fake also runs the capture's frames through its
#      mirror TOE on the same stream: the session sees that connection come
#      and go first, which the card, whose role tcp frames go to gtoe_top,
#      would not.)
# Needs no root. Takes about 15 s.
. "$(dirname "$0")/toed_common.sh"

[ -x "$OUT/xrt_mkxclbin" ] || make -s BUILD="$BUILD" "$OUT/xrt_mkxclbin" >/dev/null 2>&1 ||
	fail "cannot build $OUT/xrt_mkxclbin"
"$OUT/xrt_mkxclbin" "$TMP/toed.xclbin" >"$TMP/mkxclbin.out" 2>&1
rc=$?
[ $rc -eq 77 ] && skip "$(cat "$TMP/mkxclbin.out")"
[ $rc -eq 0 ] || fail "xrt_mkxclbin exited $rc: $(cat "$TMP/mkxclbin.out")"

# ---- the capture and its truth
mkfeed 3000 11 --fin --swap-every 3
frames=$("$OUT/mkpcap" --fin --swap-every 3 "$TMP/feed.step" "$TMP/feed.pcap" | awk '{ print $1 }')
[ "$frames" -gt 100 ] 2>/dev/null || fail "mkpcap: no frame count"
truth_filter trades >"$TMP/want.trades"
ntrades=$(wc -l <"$TMP/want.trades")
nall=$(wc -l <"$TMP/truth.jsonl")
[ "$ntrades" -gt 0 ] && [ "$ntrades" -lt "$nall" ] || fail "truth: $ntrades trades of $nall ticks"

# the gap timeout is long so that no timing (a stalled CPU on either side) can turn a swapped pair into a gap
conf "$TMP/sw.conf" "[tcp]
gap_timeout_ms = 30000"
cat >"$TMP/card.conf" <<EOF
[device]
backend = xrt
pci = 0000:3b:00.1
xclbin = toed.xclbin

[feed.sse]
exchange = 10.1.0.10:5261

[fast]
templates = $TEMPLATES

[tcp]
gap_timeout_ms = 30000

[shm]
hugepages = off
socket = $TMP/toed.sock

[log]
target = stderr
level = info
EOF

clients() { # TAG: a trades client and an everything client against the running daemon
	"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --stream sse --types trade --count "$ntrades" --timeout 20 \
		-o "$TMP/$1.trades" 2>>"$TMP/clients.log" &
	p1=$!
	bg_pid $p1
	"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --idle-ms 1500 --timeout 20 \
		-o "$TMP/$1.all" 2>>"$TMP/clients.log" &
	p2=$!
	bg_pid $p2
	wait $p1 || fail "$1: trades client exited $? ($(tail -n 2 "$TMP/clients.log"))"
	wait $p2 || fail "$1: everything client exited $? ($(tail -n 2 "$TMP/clients.log"))"
}

# ---- 1. the software backend, then the card, on the same capture
start_notify
start_toed "$TMP/sw.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "software backend: no READY=1"
clients sw
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "software backend: toed exited $TOED_RC"

: >"$TMP/toed.log"
SW_TOED=$TOED
TOED=$TOED_TEST
start_notify
start_toed "$TMP/card.conf" --test-fake-card "$TMP/feed.pcap"
wait_for "$TMP/notify.log" 'READY=1' 15 || fail "card: no READY=1"
grep -q 'card: fake card at 0000:3b:00.1' "$TMP/toed.log" || fail "card: toed_test did not use the fake card"
clients card

cmp -s "$TMP/card.trades" "$TMP/want.trades" || {
	diff "$TMP/card.trades" "$TMP/want.trades" | head -n 6
	fail "card: the trades client's ticks differ from the truth"
}
cmp -s "$TMP/sw.trades" "$TMP/want.trades" || fail "software backend: the trades client's ticks differ from the truth"
cmp -s "$TMP/card.all" "$TMP/sw.all" || {
	diff "$TMP/card.all" "$TMP/sw.all" | head -n 6
	fail "card: the everything client received other lines than from the software backend"
}
grep -v '"event"' "$TMP/card.all" >"$TMP/card.ticks"
cmp -s "$TMP/card.ticks" "$TMP/truth.jsonl" || fail "card: the everything client's ticks differ from the truth"
nrec=$(wc -l <"$TMP/card.all")
say "card = software backend = truth: $ntrades trades, $nall ticks, $((nrec - nall)) events"

# ---- 2. the card's counters (read every second by the data plane)
ctr() { # NAME: its value in the last stats text (the key, then the value)
	awk -v k="$1" '$1 == k { print $2; exit }' "$TMP/stats.txt"
}
i=0
while :; do
	"$TOECTL" -s "$TMP/toed.sock" stats >"$TMP/stats.txt" 2>&1 || fail "toectl stats failed: $(head -n 3 "$TMP/stats.txt")"
	[ "$(ctr hbm_writer_top.written)" = "$nrec" ] && [ "$(ctr host.records)" = "$nrec" ] && break
	i=$((i + 1))
	[ $i -lt 30 ] || {
		sed -n '/^\[card\]/,/^$/p' "$TMP/stats.txt" | head -n 40
		fail "toectl stats: the card's counters never showed the $nrec records"
	}
	sleep 0.2
done
grep -q '^\[card\]' "$TMP/stats.txt" || fail "toectl stats: no [card] block"
[ "$(ctr link)" = up ] || fail "toectl stats: card link $(ctr link), not up"
[ "$(ctr eth_rx_top.frames)" = "$frames" ] || fail "toectl stats: eth_rx_top.frames $(ctr eth_rx_top.frames), the capture has $frames"
[ "$(ctr cmac_0.rx_packets)" = "$frames" ] || fail "toectl stats: cmac_0.rx_packets $(ctr cmac_0.rx_packets), not $frames"
[ "$(ctr published)" = "$nrec" ] || fail "toectl stats: published $(ctr published), the client received $nrec"
[ -z "$(ctr hbm_writer_top.dropped)" ] || fail "toectl stats: the ring dropped records"
[ -z "$(ctr host.bad_records)" ] || fail "toectl stats: bad records in the ring"
[ "$(ctr host.wraps)" -ge 1 ] 2>/dev/null || fail "toectl stats: the ring never wrapped (host.wraps $(ctr host.wraps))"
"$TOECTL" -s "$TMP/toed.sock" stats --json >"$TMP/stats.json" 2>&1 || fail "toectl stats --json failed"
grep -q "\"card\":{\"describe\":\"fake card [^\"]*\",\"link\":\"up\"" "$TMP/stats.json" || fail "toectl stats --json: no card object"
grep -q "\"hbm_writer_top.written\":$nrec[,}]" "$TMP/stats.json" || fail "toectl stats --json: hbm_writer_top.written"
"$TOECTL" -s "$TMP/toed.sock" status >"$TMP/status.txt" 2>&1 || fail "toectl status failed"
grep -q 'backend  *xrt' "$TMP/status.txt" || fail "toectl status: backend is not xrt"
grep -q 'card_link  *up' "$TMP/status.txt" || fail "toectl status: no card_link up"
say "toectl stats [card]: $frames frames, $nrec records written and drained, $(ctr host.wraps) ring wraps, link up"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "card: toed exited $TOED_RC"
grep -q ': error:' "$TMP/toed.log" && fail "card: errors logged: $(grep ': error:' "$TMP/toed.log" | head -n 2)"

# ---- 3. a device error at run time
: >"$TMP/toed.log"
start_notify
start_toed "$TMP/card.conf" --test-fake-card "$TMP/feed.pcap" --test-fake-card-fail
wait_exit "$TOED_PID" 15 || fail "card failing: toed still runs"
TOED_PID=
[ "$WAIT_RC" -eq 1 ] || fail "card failing: toed exited $WAIT_RC, not 1"
grep -q 'error: data plane failed: card: the card at 0000:3b:00.1: .* failed: Input/output error' "$TMP/toed.log" ||
	fail "card failing: no error line naming the failed access"
say "device error: $(grep -m1 'data plane failed' "$TMP/toed.log" | cut -c1-110)..., exit 1"

# ---- 4. no card here (the release toed: the real card's device operations)
: >"$TMP/toed.log"
TOED=$SW_TOED
start_notify
start_toed "$TMP/card.conf"
wait_exit "$TOED_PID" 20 || fail "no card: toed still runs"
TOED_PID=
[ "$WAIT_RC" -eq 1 ] || fail "no card: toed exited $WAIT_RC, not 1 ($(tail -n 3 "$TMP/toed.log"))"
nerr=$(grep -c ': error:' "$TMP/toed.log")
[ "$nerr" -eq 1 ] || fail "no card: $nerr error lines, expected one"
grep ': error:' "$TMP/toed.log" | grep -q '0000:3b:00.1' || fail "no card: the error does not name the card"
grep -q 'READY=1' "$TMP/notify.log" && fail "no card: READY=1 sent"
say "no card: $(grep ': error:' "$TMP/toed.log" | cut -c1-120)..., exit 1"

"$TOED" --check-config -c "$TMP/card.conf" >"$TMP/check.out" 2>&1 || fail "--check-config refused the card configuration: $(cat "$TMP/check.out")"
sed 's/^gap_timeout_ms = 30000/connections = 128/' "$TMP/card.conf" >"$TMP/big.conf"
"$TOED" --check-config -c "$TMP/big.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] || fail "--check-config of 128 connections with backend = xrt: exit $rc, not 78"
grep -q 'connections = 128: the card' "$TMP/check.out" || fail "--check-config: no message on the card's limit: $(cat "$TMP/check.out")"
say "--check-config: the card configuration passes without a card; 128 connections refused (exit 78)"

# ---- 5. four ports: the configuration names ports 1..3; whether the card can is the xclbin's layout
"$OUT/xrt_mkxclbin" "$TMP/toed4.xclbin" "" 4x10g >"$TMP/mkxclbin.out" 2>&1 ||
	fail "xrt_mkxclbin 4x10g: $(cat "$TMP/mkxclbin.out")"
cat "$TMP/card.conf" - >"$TMP/ports.conf" <<EOF

[port.0]
role = mirror

[port.1]
role = mirror

[port.3]
role = udp
ip = 10.3.0.2
netmask = 24
mac = 02:00:00:00:03:02

[feed.b]
exchange = 10.1.0.10:5261
port = 1

[feed.u]
protocol = udp
vendor = *:6000
port = 3
EOF
"$TOED" --check-config -c "$TMP/ports.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] || fail "--check-config of [port.1] with the 100G xclbin: exit $rc, not 78 ($(cat "$TMP/check.out"))"
grep -q '\[port.1\]: \[device\] xclbin [^ ]*/toed.xclbin has 1 network port (the 100G build, eth_rx_top_1 alone): port 1 needs the 4 x 10G build' "$TMP/check.out" ||
	fail "--check-config: no message naming the port the xclbin lacks: $(cat "$TMP/check.out")"
sed 's/^xclbin = toed.xclbin/xclbin = toed4.xclbin/' "$TMP/ports.conf" >"$TMP/ports4.conf"
"$TOED" --check-config -c "$TMP/ports4.conf" >"$TMP/check.out" 2>&1 ||
	fail "--check-config refused four ports with the 4 x 10G xclbin: $(cat "$TMP/check.out")"
sed 's/^role = udp$/role = tcp/' "$TMP/ports4.conf" >"$TMP/ports4tcp.conf"
"$TOED" --check-config -c "$TMP/ports4tcp.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] && grep -q "port.3\] role = tcp: the card's general TOE (gtoe_top) serves port 0 only" "$TMP/check.out" ||
	fail "--check-config of role = tcp on port 3: exit $rc ($(cat "$TMP/check.out"))"
say "four ports: refused with the 100G xclbin (exit 78), accepted with the 4 x 10G one; role = tcp on port 3 refused"

# the 4 x 10G xclbin on the fake card: ports 1 and 3 held, programmed and applied with the rest (the
# backend waits for each to report OK before READY=1); no cmac_0 in this build
: >"$TMP/toed.log"
TOED=$TOED_TEST
start_notify
start_toed "$TMP/ports4.conf" --test-fake-card "$TMP/feed.pcap"
wait_for "$TMP/notify.log" 'READY=1' 15 || fail "four ports on the fake card: no READY=1 ($(tail -n 3 "$TMP/toed.log"))"
grep -q "4 x 10G ports" "$TMP/toed.log" || fail "four ports: the log does not say the layout: $(grep card "$TMP/toed.log" | head -n 3)"
"$TOECTL" -s "$TMP/toed.sock" stats >"$TMP/stats.txt" 2>&1 || fail "four ports: toectl stats failed"
grep -q "cmac_0" "$TMP/stats.txt" && fail "four ports: cmac_0 counters in a build without it"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "four ports on the fake card: toed exited $TOED_RC"
TOED=$SW_TOED
say "four ports on the fake card: ports 1 and 3 programmed, READY=1, no CMAC"

# a feed on port 1 of the 4 x 10G card, the capture arriving on port 1 (its own eth_rx_top): the same
# trades and ticks as from port 0 in part 1
sed -e 's/^xclbin = toed.xclbin/xclbin = toed4.xclbin/' -e '/^exchange = 10.1.0.10:5261$/a port = 1' \
	"$TMP/card.conf" >"$TMP/port1.conf"
printf '\n[port.0]\n\n[port.1]\nrole = mirror\n' >>"$TMP/port1.conf"
: >"$TMP/toed.log"
TOED=$TOED_TEST
start_notify
start_toed "$TMP/port1.conf" --test-fake-card "$TMP/feed.pcap" --test-fake-card-port 1
wait_for "$TMP/notify.log" 'READY=1' 15 || fail "port 1: no READY=1 ($(tail -n 3 "$TMP/toed.log"))"
clients port1
cmp -s "$TMP/port1.trades" "$TMP/want.trades" || {
	diff "$TMP/port1.trades" "$TMP/want.trades" | head -n 6
	fail "port 1: the trades client's ticks differ from the truth"
}
grep -v '"event"' "$TMP/port1.all" >"$TMP/port1.ticks"
cmp -s "$TMP/port1.ticks" "$TMP/truth.jsonl" || fail "port 1: the everything client's ticks differ from the truth"
i=0
while :; do
	"$TOECTL" -s "$TMP/toed.sock" stats >"$TMP/stats.txt" 2>&1 || fail "port 1: toectl stats failed"
	[ "$(ctr eth_rx_top_2.frames)" = "$frames" ] && break
	i=$((i + 1))
	[ $i -lt 30 ] || fail "port 1: eth_rx_top_2.frames $(ctr eth_rx_top_2.frames), the capture has $frames"
	sleep 0.2
done
[ -z "$(ctr eth_rx_top.frames)" ] || fail "port 1: port 0 counted $(ctr eth_rx_top.frames) frames"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "port 1: toed exited $TOED_RC"
TOED=$SW_TOED
say "a feed on port 1 of the 4 x 10G card: $ntrades trades, $nall ticks = truth; eth_rx_top_2.frames = $frames"

# ---- 6. role = tcp: toed's own connection on the card's general TOE
cat >"$TMP/tcp.conf" <<EOF
[device]
backend = xrt
pci = 0000:3b:00.1
xclbin = toed.xclbin

[port.0]
role = tcp
ip = 10.1.0.2
netmask = 24
gateway = 10.1.0.1
mac = 02:00:00:00:00:02

[feed.sse]
exchange = 10.1.0.10:5261
vendor = *:40001
mss = 1344
window = 16K

[fast]
templates = $TEMPLATES

[shm]
hugepages = off
socket = $TMP/toed.sock

[log]
target = stderr
level = info
EOF
"$TOED" --check-config -c "$TMP/tcp.conf" >"$TMP/check.out" 2>&1 ||
	fail "--check-config refused role = tcp with the card: $(cat "$TMP/check.out")"
: >"$TMP/toed.log"
TOED=$TOED_TEST
start_notify
start_toed "$TMP/tcp.conf" --test-fake-card "$TMP/feed.pcap" --test-fake-gtoe-up
wait_for "$TMP/notify.log" 'READY=1' 15 || fail "role tcp: no READY=1 ($(tail -n 3 "$TMP/toed.log"))"
wait_for "$TMP/toed.log" 'gtoe_top entry 0 shows an established connection' 15 || fail "role tcp: the fake's entry never set"
tconn() { # KEY: its value in the "tcp connection 0" block of the last stats text
	awk -v k="$1" '/^\[tcp connection 0 /{ on = 1; next } /^\[/{ on = 0 } on && $1 == k { $1 = ""; sub(/^ +/, ""); print; exit }' "$TMP/stats.txt"
}
i=0
while :; do
	"$TOECTL" -s "$TMP/toed.sock" stats >"$TMP/stats.txt" 2>&1 || fail "role tcp: toectl stats failed"
	[ "$(tconn phase)" = up ] && break
	i=$((i + 1))
	[ $i -lt 30 ] || {
		sed -n '/^\[tcp connection/,/^$/p' "$TMP/stats.txt" | head -n 20
		fail "role tcp: toectl stats never showed the card's connection up"
	}
	sleep 0.2
done
for kv in "feed sse" "state ESTABLISHED" "local 10.1.0.2:40001" "exchange 10.1.0.10:5261" "attempts 4" "ups 2" \
	"downs 1" "last_down reset by the peer" "srtt_us 250" "cwnd 14080" "snd_wnd 65535" "rcv_wnd 32768" "retrans 3" \
	"bytes_in 123456" "bytes_out 96" "feed_mss 1344" "feed_window 16384"; do
	k=${kv%% *}
	[ "$(tconn "$k")" = "${kv#* }" ] || fail "role tcp: toectl stats, tcp connection 0: $k is '$(tconn "$k")', not '${kv#* }'"
done
blockv() { # TITLE-PREFIX KEY: KEY's value in the stats text block whose title starts with TITLE-PREFIX
	awk -v t="[$1" -v k="$2" 'index($0, t) == 1 { on = 1; next } /^\[/{ on = 0 } on && $1 == k { print $2; exit }' "$TMP/stats.txt"
}
# gtoe_top's counters under the software backend's names (the fake's, set with the entry)
[ "$(blockv 'port (ARP' connects)" = 4 ] && [ "$(blockv 'port (ARP' established)" = 2 ] &&
	[ "$(blockv 'port (ARP' closes)" = 1 ] && [ "$(blockv 'general TOE' established)" = 2 ] ||
	fail "role tcp: toectl stats tcp/gtoe blocks: connects '$(blockv 'port (ARP' connects)', established '$(blockv 'port (ARP' established)', gtoe established '$(blockv 'general TOE' established)'"
wait_for "$TMP/toed.log" 'card: feed sse: connected to 10.1.0.10:5261 (2 times since start)' 5 ||
	fail "role tcp: no log line for the connection coming up"
grep -q 'card: feed sse: connection to 10.1.0.10:5261 reset by the peer (1 ended since start); the card reconnects' \
	"$TMP/toed.log" || fail "role tcp: no log line for the connection's end"
say "role tcp: gtoe_top programmed; toectl shows the card's connection: $(tconn state), $(tconn local) -> $(tconn exchange), srtt $(tconn srtt_us) us"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "role tcp: toed exited $TOED_RC"
grep -q ': error:' "$TMP/toed.log" && fail "role tcp: errors logged: $(grep ': error:' "$TMP/toed.log" | head -n 2)"
TOED=$SW_TOED

# open = accept: the card's general TOE listens too (gtoe_top's ACCEPT entries)
awk '{ print } /^vendor = /{ print "open = accept" }' "$TMP/tcp.conf" >"$TMP/acc.conf"
"$TOED" --check-config -c "$TMP/acc.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "--check-config of open = accept with the card: exit $rc, not 0: $(cat "$TMP/check.out")"
# session keys with the card: the STEP session runs on the host
awk '{ print } /^vendor = /{ print "sender_comp_id = VENDOR01"; print "target_comp_id = SSE" }' "$TMP/tcp.conf" >"$TMP/sess.conf"
"$TOED" --check-config -c "$TMP/sess.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "--check-config of session keys with the card: exit $rc, not 0: $(cat "$TMP/check.out")"
say "--check-config: role = tcp with the card passes, open = accept too, session keys too (the session runs on the host)"
# a feed's window makes every slot of gtoe_top that large: 64 x (64K + 8K) is beyond the card's buffers
sed 's/^window = 16K$/window = 64K/' "$TMP/tcp.conf" >"$TMP/bigwin.conf"
"$TOED" --check-config -c "$TMP/bigwin.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] && grep -q '\[feed.sse\] window = 65536: \[tcp\] connections x (window + 8192-byte send buffer) = 64 x (65536 + 8192) bytes: above the card' "$TMP/check.out" ||
	fail "--check-config of a 64K feed window with the card: exit $rc, not 78 with the feed named ($(cat "$TMP/check.out"))"
say "--check-config: a feed's 64K window refused with the card (exit 78), naming the feed"

# the STEP session over the card: the fake card's entry 0 up, a session server as the exchange
# answering through it (toed_test --test-fake-exchange); Logon through the TX mailbox, the answer
# through fast_top and the ring, logged on; at stop toed's Logout, answered
: >"$TMP/toed.log"
TOED=$TOED_TEST
start_notify
start_toed "$TMP/sess.conf" --test-fake-card "$TMP/feed.pcap" --test-fake-exchange
wait_for "$TMP/notify.log" 'READY=1' 15 || fail "session: no READY=1 ($(tail -n 3 "$TMP/toed.log"))"
wait_for "$TMP/toed.log" 'feed sse: session: logged on with SSE, HeartBtInt' 15 ||
	fail "session over the card: never logged on ($(grep -i 'session\|fake card' "$TMP/toed.log" | tail -n 4))"
i=0
while :; do # the card's figures are read once a second
	"$TOECTL" -s "$TMP/toed.sock" stats >"$TMP/stats.txt" 2>&1 || fail "session: toectl stats failed"
	[ "$(tconn session)" = active ] && break
	i=$((i + 1))
	[ $i -lt 30 ] || fail "session over the card: toectl stats never showed the session active ('$(tconn session)')"
	sleep 0.2
done
[ "$(tconn logons)" -ge 1 ] && [ "$(tconn session_msgs_lost)" = 0 ] ||
	fail "session over the card: toectl stats: logons '$(tconn logons)', lost '$(tconn session_msgs_lost)'"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "session over the card: toed exited $TOED_RC"
grep -q 'feed sse: session: logged out' "$TMP/toed.log" ||
	fail "session over the card: toed's Logout was not answered ($(grep -i 'session' "$TMP/toed.log" | tail -n 3))"
grep -q 'the exchange closed the connection\|the exchange saw the connection close' "$TMP/toed.log" &&
	[ "$(grep 'feed sse: session: ' "$TMP/toed.log" | tail -n 1 | sed 's/.*session: //')" = disconnected ] ||
	fail "session over the card: the connection's close after the Logout not seen by both ends"
grep -q ': error:' "$TMP/toed.log" && fail "session over the card: errors logged: $(grep ': error:' "$TMP/toed.log" | head -n 2)"
TOED=$SW_TOED
say "session over the (fake) card: logged on through the mailbox and the ring, toectl shows it, Logout answered at stop"

echo "PASS: backend = xrt drains the (fake) card through the software backend's publication path"
exit 0
