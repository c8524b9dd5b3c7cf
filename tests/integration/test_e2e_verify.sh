#!/bin/sh
# test_e2e_verify.sh - the verifying client (toe-verify) gives the right verdicts.
#
# toed replays captures of known feeds (toe-fastgen's feed is toe-feedsim's
# for the same options; mkpcap turns it into a TCP connection), and
# toe-verify, starting from the daemon's history, must:
#   clean      pass, every record matched (3000 of 3000);
#   filtered   pass with orders of channels 1 and 4 only, as many as the truth
#              file holds (counted independently with awk);
#   wrong-seed fail (exit 1): every record differs from the truth it expects;
#   too-short  fail (exit 1): told the feed has 3100 records, it must call the
#              100 that never came missing without a gap (unexplained = 100);
#   lossy      pass on a capture that lost every 25th segment: gap records
#              explain every missing record, matched + missing = 3000;
#   slow       pass with a ring of 64: the daemon drops records for it, the
#              drops explain the missing ones, nothing else is wrong;
#   lossy-sec  a filtered client (one security) stops at its last record and
#              misses the gaps after it; with --drain it counts every gap;
#   global     the feed numbered the old way (toe-fastgen --biz-global: BizIndex
#              1, 2, 3, ... across channels, not per channel as SSE): pass with
#              --biz-global, every record matched by channel and BizIndex, and
#              fail without it (every record differs in its BizIndex).
# The ASan/UBSan build of toe-verify is used when make test-build made it.
# Needs no root. Takes about 5 s.
. "$(dirname "$0")/toed_common.sh"

VERIFY=$BUILD/bin/toe-verify
[ -x "$VERIFY" ] || make -s BUILD="$BUILD" "$VERIFY" >/dev/null 2>&1 || fail "cannot build $VERIFY"
VERIFY=$(asan_fresh "$VERIFY" "$BUILD/asan/bin/toe-verify")

# replay CAPTURE-OPTIONS: a fresh daemon that has replayed a 3000-record feed (seed 41)
replay() {
	[ -n "$TOED_PID" ] && stop_toed
	mkfeed 3000 41 --fin "$@"
	start_notify
	: >"$TMP/toed.log"
	conf "$TMP/toed.conf"
	start_toed "$TMP/toed.conf"
	wait_for "$TMP/toed.log" 'pcap replay over' 10 || fail "the replay did not end"
}

# verify NAME WANT-EXIT [toe-verify options]
verify() {
	_name=$1 _want=$2
	shift 2
	"$VERIFY" --templates "$T" --socket "$TMP/toed.sock" --seed 41 --expect 3000 --from-start \
		--idle-ms 500 --timeout 20 --label "$_name" "$@" >"$TMP/$_name.out" 2>"$TMP/$_name.err"
	_rc=$?
	if [ $_rc -ne "$_want" ]; then
		cat "$TMP/$_name.out"
		head -n 20 "$TMP/$_name.err"
		fail "$_name: toe-verify exited $_rc, expected $_want"
	fi
	grep -q '^VERIFY ' "$TMP/$_name.out" || fail "$_name: no VERIFY line"
}
want() { # NAME KEY VALUE
	[ "$(vget "$TMP/$1.out" "$2")" = "$3" ] || fail "$1: $2 = $(vget "$TMP/$1.out" "$2"), expected $3: $(cat "$TMP/$1.out")"
}

replay
verify clean 0
want clean matched 3000
want clean expected 3000
want clean wrong 0
want clean gaps 0
want clean dropped 0
say "clean: 3000 of 3000 matched"

n14=$(truth_filter orders-ch:1,4 | wc -l)
verify filtered 0 --types order --channel 1 --channel 4
want filtered expected "$n14"
want filtered matched "$n14"
say "filtered: $n14 orders of channels 1 and 4, as the truth file has"

verify wrong-seed 1 --seed 42
[ "$(vget "$TMP/wrong-seed.out" wrong)" -gt 0 ] || fail "wrong-seed: no wrong record reported"
grep -q 'differs from the truth' "$TMP/wrong-seed.err" || fail "wrong-seed: the violation is not described"
say "wrong seed: $(vget "$TMP/wrong-seed.out" wrong) wrong records, exit 1"

verify too-short 1 --expect 3100
want too-short unexplained 100
want too-short matched 3000
say "a feed shorter than expected: 100 records missing without a gap, exit 1"

verify slow 0 --capacity 64 --slow 100
[ "$(vget "$TMP/slow.out" dropped)" -gt 0 ] || fail "slow: no drop with a ring of 64"
want slow wrong 0
[ $(($(vget "$TMP/slow.out" matched) + $(vget "$TMP/slow.out" dropped))) = 3000 ] ||
	fail "slow: matched + dropped is not 3000: $(cat "$TMP/slow.out")"
say "slow client, ring of 64: $(vget "$TMP/slow.out" matched) matched, $(vget "$TMP/slow.out" dropped) dropped"

replay --drop-every 25
verify lossy 0
want lossy wrong 0
want lossy unexplained 0
[ "$(vget "$TMP/lossy.out" gaps)" -gt 0 ] || fail "lossy: no gap record"
[ "$(vget "$TMP/lossy.out" missing_in_gaps)" -gt 0 ] || fail "lossy: nothing missing in gaps"
[ $(($(vget "$TMP/lossy.out" matched) + $(vget "$TMP/lossy.out" missing_in_gaps))) = 3000 ] ||
	fail "lossy: matched + missing in gaps is not 3000: $(cat "$TMP/lossy.out")"
say "lossy capture: $(vget "$TMP/lossy.out" matched) matched, $(vget "$TMP/lossy.out" missing_in_gaps) in $(vget "$TMP/lossy.out" gaps) gaps"
# A filtered client stops at the last record its filter keeps; gap records for
# the loss after it (security 601333's last record is the feed's 1946th of
# 3000) reach its ring but it never reads them. --drain FILE reads on until
# FILE exists (here at once) and the ring is empty: then it counts every gap,
# as the unfiltered client does (test_e2e_mirror.sh compares the two).
verify lossy-sec 0 --security 601333
verify lossy-sec-drain 0 --security 601333 --drain "$TMP/toed.log"
lgaps=$(vget "$TMP/lossy.out" gaps)
[ "$(vget "$TMP/lossy-sec.out" gaps)" -lt "$lgaps" ] ||
	fail "lossy-sec: $(vget "$TMP/lossy-sec.out" gaps) gaps without --drain, no gap after its last record (of $lgaps)"
want lossy-sec-drain gaps "$lgaps"
want lossy-sec-drain matched "$(vget "$TMP/lossy-sec.out" matched)"
say "a filtered client on the lossy capture: $(vget "$TMP/lossy-sec.out" gaps) gaps up to its last record, $lgaps with --drain"

FASTGEN_OPTS=--biz-global replay
verify global 0 --biz-global
want global matched 3000
want global wrong 0
verify global-as-sse 1
[ "$(vget "$TMP/global-as-sse.out" matched)" -lt 3000 ] || fail "global-as-sse: the other numbering matched"
grep -q 'BizIndex' "$TMP/global-as-sse.err" || fail "global-as-sse: the BizIndex difference is not described"
say "global BizIndex: 3000 of 3000 matched with --biz-global; without it, exit 1"

stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
echo "PASS: toe-verify's verdicts"
exit 0
