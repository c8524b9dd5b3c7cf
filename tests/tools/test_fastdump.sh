#!/bin/sh
# test_fastdump.sh - toe-fastdump and toe-fastgen as a user runs them.
#
# STEP and raw feeds decode exactly to the generator's truth, with --framing
# given and without it (auto: a STEP file is recognised); --reset-every
# resets the dictionary; a damaged message is reported with its offset and
# skipped while the rest decodes; a cut file is reported; --stats counts;
# usage errors exit 2. Uses the ASan build of the tools.
set -u
. "$(dirname "$0")/lib_check.sh"

# 1. STEP feed: decoded records equal the truth, byte for byte
"$BIN/toe-fastgen" --templates "$T" --records 3000 --seed 7 --framing step --per-msg 5 \
	--truth "$W/step.truth" -o "$W/feed.step"
"$BIN/toe-fastdump" --templates "$T" --framing step "$W/feed.step" >"$W/step.out" 2>"$W/step.err"
check "step decode exits 0" [ $? -eq 0 ]
check "step decode equals truth" cmp -s "$W/step.out" "$W/step.truth"
check "step records carry msg_seq" grep -q '"msg_seq":1,' "$W/step.out"
check "3000 records" [ "$(wc -l <"$W/step.out")" -eq 3000 ]
"$BIN/toe-fastdump" --templates "$T" "$W/feed.step" >"$W/auto.out" 2>"$W/auto.err"
check "step file without --framing exits 0" [ $? -eq 0 ]
check "step file without --framing equals truth" cmp -s "$W/auto.out" "$W/step.truth"

# 2. raw feed (one stream, no reset) equals truth; also from standard input
"$BIN/toe-fastgen" --templates "$T" --records 2000 --seed 8 --framing raw --truth "$W/raw.truth" -o "$W/feed.raw"
"$BIN/toe-fastdump" --templates "$T" --framing raw - <"$W/feed.raw" >"$W/raw.out"
check "raw decode from stdin equals truth" cmp -s "$W/raw.out" "$W/raw.truth"
"$BIN/toe-fastdump" --templates "$T" - <"$W/feed.raw" >"$W/raw.out"
check "raw stdin without --framing equals truth" cmp -s "$W/raw.out" "$W/raw.truth"
"$BIN/toe-fastdump" --templates "$T" --stats "$W/feed.raw" >"$W/rawst.out"
check "stats say the framing detected (raw)" grep -qx "framing raw (detected)" "$W/rawst.out"

# 3. --reset-every: a record that relies on the dictionary (pmap 0x80: template
#    id and every field from the previous record) decodes after a full record,
#    and fails once the dictionary is reset before it
T2=conf/templates/sse-ngts-2.02-3201.xml
printf '\137\340\031\201\007\351\201\066\060\060\060\060\260\004\067\120\241\000\122\205\006\015\241\062\010\130\301\200' >"$W/two.raw"
"$BIN/toe-fastdump" --templates "$T2" "$W/two.raw" >"$W/two.out" 2>&1
check "copy/increment record decodes without reset" grep -q '"TradeIndex":1002' "$W/two.out"
"$BIN/toe-fastdump" --templates "$T2" --reset-every 1 "$W/two.raw" >"$W/two.out" 2>"$W/two.err"
rc=$?
check "with --reset-every 1 the second record fails" [ $rc -eq 1 ]
check "the error names D5, its offset and the record's" grep -q "offset 28 (record at 27): D5_mandatory_undefined" "$W/two.err"

# 4. a damaged message: reported with its offset, the others still decode
python3 - "$W/feed.step" "$W/bad.step" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
# the checksum of the 3rd message: find the 3rd "\x0110=" and change a digit
i = -1
for _ in range(3):
    i = d.index(b'\x0110=', i + 1)
d[i + 4] = ord('0') + (d[i + 4] - ord('0') + 1) % 10
open(sys.argv[2], 'wb').write(d)
PY
"$BIN/toe-fastdump" --templates "$T" --framing step "$W/bad.step" >"$W/bad.out" 2>"$W/bad.err"
check "damaged feed exits 1" [ $? -eq 1 ]
check "checksum error reported with offset" grep -q "offset [0-9]*: step_bad_checksum" "$W/bad.err"
# records of message 3 are missing, every other record is there and exact
grep -v '"msg_seq":3,' "$W/step.truth" >"$W/bad.expect"
check "all other records exact" cmp -s "$W/bad.out" "$W/bad.expect"

# 5. a cut file: the partial message is reported
head -c 1000 "$W/feed.step" >"$W/cut.step"
"$BIN/toe-fastdump" --templates "$T" --framing step "$W/cut.step" >/dev/null 2>"$W/cut.err"
check "cut file exits 1" [ $? -eq 1 ]
check "cut file reported" grep -q "input ends inside a STEP message" "$W/cut.err"

# 6. --stats
"$BIN/toe-fastdump" --templates "$T" --framing step --stats "$W/feed.step" >"$W/stats.out"
check "stats count the records" grep -q "^records 3000$" "$W/stats.out"
check "stats say the framing given" grep -qx "framing step" "$W/stats.out"
"$BIN/toe-fastdump" --templates "$T" --stats "$W/feed.step" >"$W/stats2.out"
check "stats say the framing detected (step)" grep -qx "framing step (detected)" "$W/stats2.out"
check "detected framing counts the same" grep -q "^records 3000$" "$W/stats2.out"
n3201=$(grep -c '"template":3201' "$W/step.truth")
check "stats per template" grep -q "^template 3201 Transaction $n3201$" "$W/stats.out"
check "stats give a rate" grep -q "^rate .* ns/record$" "$W/stats.out"

# 7. usage and file errors
"$BIN/toe-fastdump" --framing step "$W/feed.step" >/dev/null 2>&1
check "missing --templates exits 2" [ $? -eq 2 ]
"$BIN/toe-fastdump" --templates "$T" --framing bogus "$W/feed.step" >/dev/null 2>&1
check "bad --framing exits 2" [ $? -eq 2 ]
"$BIN/toe-fastdump" --templates "$W/none.xml" "$W/feed.step" >/dev/null 2>"$W/t.err"
check "missing template file exits 1 with its name" sh -c "[ $? -eq 1 ] && grep -q none.xml '$W/t.err'"

[ $fail -eq 0 ]
