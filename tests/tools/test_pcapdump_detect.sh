#!/bin/sh
# test_pcapdump_detect.sh - toe-pcapdump told nothing to follow finds the feeds in the capture itself.
#
# One capture (three made by tests/integration/mkpcap, merged in time order) holds an exchange's TCP
# feed, a UDP feed of STEP datagrams, and another connection whose sender sends STEP logons only (no
# 96=, as a vendor's side does). Without --feed/--flow/--udp the tool must follow the TCP feed's sender
# and the UDP port, name both on stderr, not take the logon sender for a feed, and print exactly what
# it prints when they are named; likewise from a Linux cooked (SLL2) capture. A capture with no STEP
# data message exits 2 and says so. Uses the ASan build of the tool (tools/feed/feed_detect.c).
set -u
. "$(dirname "$0")/lib_check.sh"
built "$BIN/toe-pcapdump" "$BIN/toe-fastgen" "$BUILD/itest/mkpcap"

"$BIN/toe-fastgen" --templates "$T" --records 300 --seed 9 --framing step --per-msg 3 -o "$W/tcp.step" ||
	{ echo "FAIL: toe-fastgen"; exit 1; }
"$BIN/toe-fastgen" --templates "$T" --records 100 --seed 10 --framing step --per-msg 3 -o "$W/udp.step" ||
	{ echo "FAIL: toe-fastgen"; exit 1; }
python3 - "$W/logon.step" <<'PY'
import sys
body = b"35=A\x0149=VENDOR\x0156=SSE\x0134=1\x0152=20261204-09:30:00.000\x0198=0\x01108=30\x01"
m = b"8=STEP.1.0.0\x019=%d\x01" % len(body) + body
open(sys.argv[1], 'wb').write((m + b"10=%03d\x01" % (sum(m) % 256)) * 3)
PY
"$BUILD/itest/mkpcap" --fin "$W/tcp.step" "$W/tcp.pcap" >/dev/null &&
	"$BUILD/itest/mkpcap" --udp --exchange 10.1.0.20:7000 --vendor 10.1.0.2:5001 "$W/udp.step" "$W/udp.pcap" \
		>/dev/null &&
	"$BUILD/itest/mkpcap" --exchange 10.1.0.3:40002 --vendor 10.1.0.11:5262 "$W/logon.step" "$W/logon.pcap" \
		>/dev/null || { echo "FAIL: mkpcap"; exit 1; }
python3 - "$W/all.pcap" "$W/tcp.pcap" "$W/logon.pcap" "$W/udp.pcap" <<'PY'
import struct, sys
hdr, recs = None, []
for k, f in enumerate(sys.argv[2:]):
    d = open(f, 'rb').read()
    hdr = hdr or d[:24]
    i, n = 24, 0
    while i < len(d):
        sec, frac, incl, _ = struct.unpack('<IIII', d[i:i + 16])
        recs.append((sec, frac, k, n, d[i:i + 16 + incl]))
        i, n = i + 16 + incl, n + 1
recs.sort()
open(sys.argv[1], 'wb').write(hdr + b''.join(r[4] for r in recs))
PY

"$BIN/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 --udp 5001 "$W/all.pcap" >"$W/named.out" 2>/dev/null
check "named feeds: 400 records" [ "$(records "$W/named.out")" -eq 400 ]
"$BIN/toe-pcapdump" --templates "$T" "$W/all.pcap" >"$W/found.out" 2>"$W/found.err"
check "nothing named: exits 0" [ $? -eq 0 ]
check "nothing named: prints what naming them prints" cmp -s "$W/named.out" "$W/found.out"
check "the TCP feed's sender is named" grep -q "following --feed 10.1.0.10:5261 (20 segments" "$W/found.err"
check "the UDP port is named" grep -q "following --udp 5001 (" "$W/found.err"
check "the logon sender is not followed" sh -c "! grep -q '10.1.0.3' '$W/found.err'"

# a capture of tcpdump -i any (Linux cooked SLL2): the same link handling as the decode pass
"$BUILD/itest/mkpcap" --fin --link sll2 "$W/tcp.step" "$W/sll2.pcap" >/dev/null || { echo "FAIL: mkpcap sll2"; exit 1; }
"$BIN/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 "$W/sll2.pcap" >"$W/sll2-named.out" 2>/dev/null
"$BIN/toe-pcapdump" --templates "$T" "$W/sll2.pcap" >"$W/sll2.out" 2>"$W/sll2.err"
check "SLL2 capture: the feed is found" grep -q "following --feed 10.1.0.10:5261 " "$W/sll2.err"
check "SLL2 capture: 300 records, as with the feed named" \
	sh -c "[ \$(grep -vc '\"event\"' '$W/sll2.out') -eq 300 ] && cmp -s '$W/sll2.out' '$W/sll2-named.out'"

"$BIN/toe-pcapdump" --templates "$T" "$W/logon.pcap" >"$W/none.out" 2>"$W/none.err"
check "no STEP data message: exit 2" [ $? -eq 2 ]
check "no STEP data message: said so" grep -q "nothing to follow: .*no STEP message with FAST data" "$W/none.err"
"$BIN/toe-pcapdump" --templates "$T" "$W/missing.pcap" >/dev/null 2>"$W/miss.err"
check "a missing capture: exit 1 with its name" sh -c "[ $? -eq 1 ] && grep -q missing.pcap '$W/miss.err'"

exit $fail
