#!/bin/sh
# test_toed_release.sh - the release toed carries no test doubles, no test options, no test hooks.
#
# The fake card, its fault injection and the data-plane stall live in the test
# library and the test program toed_test (tests/integration/toed_test.c),
# which injects them through toed_run's seams. Checks, on $BUILD/bin/toed:
#   - --test-stall-dataplane, --test-fake-card, --test-fake-card-fail and --test-fake-gtoe-up are
#     unknown options (exit 2, "unrecognized option"), before any config is read;
#   - no fake card symbol (toe_devops_fake, toe_fake_*) in its symbol table;
#   - none of the test options' or the old test environment variables' names
#     (TOED_TEST_*) and no "fake card" text among its strings;
# and, so that the checks above can fail, the same checks find all of it in
# toed_test. Needs no root, no network. Takes a second.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
REL=$BUILD/bin/toed
TST=$BUILD/itest/toed_test
fail() { echo "FAIL: $*"; exit 1; }
command -v nm >/dev/null 2>&1 && command -v strings >/dev/null 2>&1 || { echo "SKIP: needs nm and strings (binutils)"; exit 77; }
for f in "$REL" "$TST"; do
	[ -x "$f" ] || make -s BUILD="$BUILD" "$f" >/dev/null 2>&1 || fail "cannot build $f"
done
TMP=$(mktemp -d /tmp/toed-release.XXXXXX) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT

# ---- the options
for opt in --test-stall-dataplane=800 "--test-fake-card=$TMP/x.pcap" --test-fake-card-fail --test-fake-gtoe-up; do
	"$REL" -c /nonexistent --foreground "$opt" >"$TMP/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "release toed $opt: exit $rc, not 2 (usage): $(head -n 2 "$TMP/out")"
	grep -q "unrecognized option '${opt%%=*}" "$TMP/out" || fail "release toed $opt: no 'unrecognized option': $(head -n 2 "$TMP/out")"
done
"$REL" --help >"$TMP/help" 2>&1 || fail "release toed --help failed"
grep -qi 'test' "$TMP/help" && fail "release toed --help mentions test options: $(grep -i test "$TMP/help")"
"$TST" --help >"$TMP/help" 2>&1 || fail "toed_test --help failed"
grep -q -- '--test-stall-dataplane' "$TMP/help" || fail "toed_test --help does not list --test-stall-dataplane"
"$TST" -c /nonexistent --test-stall-dataplane=abc >"$TMP/out" 2>&1
[ $? -eq 2 ] || fail "toed_test --test-stall-dataplane=abc: not a usage error"
echo "== release toed refuses the test options (exit 2); toed_test takes them"

# ---- the symbols and the strings
syms() { nm "$1" 2>/dev/null | awk '{ print $NF }' | grep -c -e '^toe_devops_fake$' -e '^toe_fake_'; }
texts() { strings "$1" | grep -c -e 'test-stall-dataplane' -e 'test-fake-card' -e 'TOED_TEST_' -e 'fake card'; }
n=$(syms "$REL")
[ "$n" -eq 0 ] || fail "release toed has $n fake card symbols: $(nm "$REL" | grep -e toe_devops_fake -e toe_fake_ | head -n 3)"
n=$(texts "$REL")
[ "$n" -eq 0 ] || fail "release toed has $n test strings: $(strings "$REL" | grep -e test- -e TOED_TEST_ -e 'fake card' | head -n 3)"
[ "$(syms "$TST")" -gt 0 ] || fail "toed_test has no fake card symbols: the symbol check cannot see them"
[ "$(texts "$TST")" -gt 0 ] || fail "toed_test has no test strings: the strings check cannot see them"
echo "== release toed: no fake card symbol, no test option or variable among its strings (toed_test has them)"
echo "PASS: the release toed carries no test doubles"
exit 0
