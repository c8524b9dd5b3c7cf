#!/bin/sh
# test_pcapdump_links.sh - toe-pcapdump reads every link type toed's pcap source reads, the same way.
#
# One feed captured four ways (tests/integration/mkpcap --link): Ethernet, Linux cooked SLL and SLL2
# (what tcpdump -i any writes; SLL2 is libpcap 1.10's default) and raw IP, and two of them saved as
# pcapng (mkpcap --pcapng). Each must decode to exactly
# the records of the Ethernet capture, all of the truth: the link header is replaced by an Ethernet one
# in kernels/net/host/net_link.c, which toed's pcap source uses too (tests/unit/test_net_link.c checks
# the headers byte by byte). A link type it cannot read is refused with its name, exit 1. Uses the ASan
# build of the tool.
set -u
. "$(dirname "$0")/lib_check.sh"
built "$BIN/toe-pcapdump" "$BIN/toe-fastgen" "$BUILD/itest/mkpcap"

"$BIN/toe-fastgen" --templates "$T" --records 300 --seed 9 --framing step --per-msg 3 \
	--truth "$W/truth" -o "$W/feed.step" || { echo "FAIL: toe-fastgen"; exit 1; }
all=$(wc -l <"$W/truth")
for l in ethernet sll sll2 raw; do
	"$BUILD/itest/mkpcap" --fin --link $l "$W/feed.step" "$W/$l.pcap" >/dev/null || { echo "FAIL: mkpcap --link $l"; exit 1; }
	"$BIN/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 --verify-checksums "$W/$l.pcap" >"$W/$l.out" 2>"$W/$l.err"
	check "$l capture: exits 0" [ $? -eq 0 ]
	check "$l capture: every record decodes ($all)" [ "$(records "$W/$l.out")" -eq "$all" ]
	check "$l capture: no warning" sh -c "! grep -q 'warning' '$W/$l.err'"
done
# pcapng, as Wireshark and dumpcap save (libpcap reads it)
for l in ethernet sll2; do
	"$BUILD/itest/mkpcap" --fin --link $l --pcapng "$W/feed.step" "$W/$l-ng.pcap" >/dev/null ||
		{ echo "FAIL: mkpcap --link $l --pcapng"; exit 1; }
	check "$l pcapng: a pcapng file" sh -c "head -c 4 '$W/$l-ng.pcap' | od -An -tx1 | grep -q '0a 0d 0d 0a'"
	"$BIN/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 --verify-checksums "$W/$l-ng.pcap" >"$W/$l-ng.out" 2>"$W/$l-ng.err"
	check "$l pcapng: exits 0" [ $? -eq 0 ]
done
for l in sll sll2 raw ethernet-ng sll2-ng; do
	cmp -s "$W/ethernet.out" "$W/$l.out"
	check "$l capture decodes exactly as the Ethernet one" [ $? -eq 0 ]
done

# a link type neither reads: refused by name (a pcap header with LINKTYPE_IEEE802_11, 105, and no packet)
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\151\000\000\000' >"$W/wifi.pcap"
"$BIN/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 "$W/wifi.pcap" >/dev/null 2>"$W/wifi.err"
check "802.11 capture: refused, exit 1" [ $? -eq 1 ]
check "802.11 capture: the link type named" grep -q 'link type 105 (IEEE802_11) not supported' "$W/wifi.err"

exit $fail
