#!/bin/sh
# test_toed_abuse_names.sh - a client's chosen name cannot forge toectl's output (issue 10, 9).
#
# A client says HELLO with a name holding a terminal escape, a newline and a forged row, and bytes that
# are not UTF-8. toectl clients shows it escaped (\x1b, \x0a, \xff: no raw control byte, no extra row);
# toectl clients --json stays valid JSON and carries the same escaped text; valid UTF-8 stays as it is.
# Takes about 4 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_abuse.sh"

abuse_start
# ESC [31m "evil" LF "1 2 3 forged" 0xff 0xfe, then "é"
"$ABUSE" hello "$TMP/toed.sock" 1b5b33316d6576696c0a312032203320666f72676564fffe20c3a9 5 >"$TMP/hello.out" 2>&1 &
H=$!
bg_pid $H
wait_for "$TMP/hello.out" 'hello' 5 || fail "the client's HELLO was not answered: $(cat "$TMP/hello.out")"
"$TOECTL" -s "$TMP/toed.sock" clients >"$TMP/clients.txt" || fail "toectl clients"
grep -q "$(printf '\033')" "$TMP/clients.txt" && fail "toectl clients prints a raw escape byte"
grep -qF '\x1b[31mevil\x0a1 2 3 forged\xff\xfe' "$TMP/clients.txt" ||
	fail "the name is not shown escaped: $(cat "$TMP/clients.txt")"
rows=$(wc -l <"$TMP/clients.txt")
[ "$rows" -eq 5 ] || fail "toectl clients printed $rows lines (header, 3 clients, total expected): $(cat "$TMP/clients.txt")"
"$TOECTL" -s "$TMP/toed.sock" clients --json >"$TMP/clients.json" || fail "toectl clients --json"
python3 - "$TMP/clients.json" <<'PY' || fail "toectl clients --json is not valid JSON with the escaped name"
import json, sys
doc = json.loads(open(sys.argv[1], encoding="utf-8", errors="strict").read())
names = [c["name"] for c in doc]
want = "\\x1b[31mevil\\x0a1 2 3 forged\\xff\\xfe \u00e9"
assert want in names, names
PY
ctl_answers "forged name"
victim_moves "forged name"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
say "a forged client name is shown escaped, in text and in valid JSON"
echo "PASS: client names"
