#!/bin/sh
# test_toed_abuse_rings.sh - clients cannot make toed promise more ring memory than its budgets (issue 10, 4).
#
# [shm] ring_memory_mb = 100, ring_memory_per_uid_mb = 70, normal pages. Rings of 262144 records take
# 32 MiB and 8 KiB each.
#   - uid 65534 asks for three: two are created, the third refused with EDQUOT (its budget);
#   - root (no per-user budget) asks for two: the first fits the total (with the victim's 1 MiB ring),
#     the second is refused with ENOSPC (the daemon's budget);
#   - the daemon's shared memory stays within the budget; the refusals are logged and counted; toectl,
#     the watchdog and the victim go on.
# Needs root (setpriv). Takes about 6 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_abuse.sh"
need_root_setpriv

abuse_start "ring_memory_mb = 100
ring_memory_per_uid_mb = 70
socket_mode = 0666"

as_nobody "$ABUSE" rings "$TMP/toed.sock" 3 262144 6 >"$TMP/rings1.out" 2>&1 &
A=$!
bg_pid $A
wait_for "$TMP/rings1.out" 'EDQUOT\|ENOSPC\|^[A-Z]' 10 || true
sleep 0.5
[ "$(sed -n 1,2p "$TMP/rings1.out" | tr '\n' ' ')" = "ok ok " ] || fail "uid 65534's first two rings: $(cat "$TMP/rings1.out")"
grep -q '^EDQUOT .*budget' "$TMP/rings1.out" || fail "uid 65534's third ring not refused with EDQUOT: $(cat "$TMP/rings1.out")"
"$ABUSE" rings "$TMP/toed.sock" 2 262144 5 >"$TMP/rings2.out" 2>&1 &
B=$!
bg_pid $B
sleep 1
[ "$(sed -n 1p "$TMP/rings2.out")" = "ok" ] || fail "root's first ring: $(cat "$TMP/rings2.out")"
grep -q '^ENOSPC .*budget' "$TMP/rings2.out" || fail "root's second ring not refused with ENOSPC: $(cat "$TMP/rings2.out")"
"$TOECTL" -s "$TMP/toed.sock" status --json >"$TMP/status.json" || fail "toectl status"
python3 - "$TMP/status.json" <<'PY' || fail "toectl status does not show the ring budget in use"
import json, sys
l = json.load(open(sys.argv[1]))["limits"]
assert l["ring_memory_mb"] == 100 and l["ring_memory_per_uid_mb"] == 70, l
assert 3 * 32 * 1024 <= l["ring_memory_used_kb"] <= 100 * 1024, l
PY
shm_kb=$(awk '$1 == "RssShmem:" { print $2 }' "/proc/$TOED_PID/status")
[ -n "$shm_kb" ] && [ "$shm_kb" -le $((100 * 1024 + 4096)) ] || fail "toed holds $shm_kb KiB of shared memory (budget 100 MiB)"
ctl_answers "ring budgets reached"
watchdog_during "ring budgets reached" 1
victim_moves "ring budgets reached"
"$TOECTL" -s "$TMP/toed.sock" stats --json >"$TMP/stats.json" || fail "toectl stats"
python3 - "$TMP/stats.json" <<'PY' || fail "toectl stats does not show the budget refusals"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["control"]["over_budget"] == 2, s["control"]
assert s["publisher"]["ring_budget_refusals"] == 1, s["publisher"]
assert s["publisher"]["ring_bytes"] <= 100 << 20, s["publisher"]
PY
grep -q "refused a ring to pid .* over uid 65534's budget" "$TMP/toed.log" || fail "no log line about the per-user budget"
grep -q "refused a ring to pid .* over the daemon's ring memory budget" "$TMP/toed.log" ||
	fail "no log line about the total budget"
wait_exit $A 10
wait_exit $B 10
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
say "rings: uid 65534 got 2 (then EDQUOT), root 1 (then ENOSPC); shared memory $shm_kb KiB; toectl in $CTL_MS ms"
echo "PASS: ring memory stays within its budgets"
