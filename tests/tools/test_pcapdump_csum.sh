#!/bin/sh
# test_pcapdump_csum.sh - toe-pcapdump on a capture whose checksums were left to transmit offload.
#
# A capture taken on the sending host (or of a veth/tc mirror) holds TCP
# segments whose checksum field carries only the pseudo-header sum. Like
# Wireshark, toe-pcapdump does not verify TCP/UDP checksums by default, so
# such a capture decodes completely; with --verify-checksums every segment
# fails, nothing decodes, and a warning on stderr says how many failed and
# names --no-verify-checksums. A capture with real checksums decodes the same
# with verification on, without a warning. Uses the ASan build of the tool.
set -u
. "$(dirname "$0")/lib_check.sh"
built "$BIN/toe-pcapdump" "$BIN/toe-fastgen" "$BUILD/itest/mkpcap"

"$BIN/toe-fastgen" --templates "$T" --records 400 --seed 5 --framing step --per-msg 4 \
	--truth "$W/truth" -o "$W/feed.step" || { echo "FAIL: toe-fastgen"; exit 1; }
all=$(wc -l <"$W/truth")
"$BUILD/itest/mkpcap" --fin --csum-offload "$W/feed.step" "$W/offload.pcap" >/dev/null || { echo "FAIL: mkpcap"; exit 1; }
"$BUILD/itest/mkpcap" --fin "$W/feed.step" "$W/good.pcap" >/dev/null || { echo "FAIL: mkpcap"; exit 1; }
dump() { # OUT PCAP [options]
	o=$1 p=$2
	shift 2
	"$BIN/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 "$@" "$p" >"$W/$o.out" 2>"$W/$o.err"
}

dump default "$W/offload.pcap"
check "offload capture, default: exits 0" [ $? -eq 0 ]
check "offload capture, default: every record decodes ($all)" [ "$(records "$W/default.out")" -eq "$all" ]
check "offload capture, default: no checksum warning" sh -c "! grep -q 'checksum verification' '$W/default.err'"
check "offload capture, default: counted as unchecked" grep -q 'net.tcp.csum_unchecked' "$W/default.err"

dump verify "$W/offload.pcap" --verify-checksums
check "offload capture, --verify-checksums: exits 0" [ $? -eq 0 ]
check "offload capture, --verify-checksums: nothing decodes" [ "$(records "$W/verify.out")" -eq 0 ]
check "offload capture, --verify-checksums: warns, all segments failed" \
	grep -q 'warning: \([0-9]*\) of \1 TCP/UDP segments failed checksum verification.*(all of them).*--no-verify-checksums' "$W/verify.err"

dump noverify "$W/offload.pcap" --verify-checksums --no-verify-checksums
check "--no-verify-checksums after --verify-checksums: the last one wins" [ "$(records "$W/noverify.out")" -eq "$all" ]

dump good "$W/good.pcap" --verify-checksums
check "real checksums, --verify-checksums: every record decodes" [ "$(records "$W/good.out")" -eq "$all" ]
check "real checksums, --verify-checksums: no warning" sh -c "! grep -q 'warning' '$W/good.err'"
cmp -s "$W/default.out" "$W/good.out"
check "offload capture unverified decodes exactly as the real one verified" [ $? -eq 0 ]

exit $fail
