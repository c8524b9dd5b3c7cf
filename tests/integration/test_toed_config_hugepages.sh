#!/bin/sh
# test_toed_config_hugepages.sh - [shm] hugepages: what toed adds to vm.nr_hugepages it takes back at exit.
#
# toed raises vm.nr_hugepages to the count its configuration asks for; before issue 10 the pages stayed
# reserved after it stopped. Now, at exit, it lowers the count by exactly what it added, so pages that
# another user reserved meanwhile stay: the test adds 2 pages of its own while toed runs and expects
# exactly those 2 above the original count once toed has stopped.
# Needs root and a writable /proc/sys/vm/nr_hugepages. Takes about 2 s.
. "$(dirname "$0")/toed_common.sh"

NR=/proc/sys/vm/nr_hugepages
[ "$(id -u)" -eq 0 ] || skip "needs root (writes $NR)"
[ -r "$NR" ] || skip "no $NR (kernel without huge pages)"
before=$(cat "$NR")
echo "$before" >"$NR" 2>/dev/null || skip "$NR is not writable here (a container?)"
EXTRA_CLEANUP="echo $before >$NR"

mkfeed 200 5
LOOPS=0 conf "$TMP/toed.conf" # replays forever: toed runs until stopped
want=$((before + 4))
sed -i "s/^hugepages = off/hugepages = $want/" "$TMP/toed.conf"
start_notify
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "toed did not get ready"
during=$(cat "$NR")
[ "$during" -ge "$want" ] || skip "the kernel reserved $during of $want huge pages (memory too fragmented)"
say "toed raised vm.nr_hugepages from $before to $during"

# another user of huge pages takes 2 more while toed runs
echo $((during + 2)) >"$NR"
[ "$(cat "$NR")" -eq $((during + 2)) ] || skip "the kernel did not reserve 2 more pages"

stop_toed TERM
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
after=$(cat "$NR")
[ "$after" -eq $((before + 2)) ] ||
	fail "vm.nr_hugepages is $after after toed stopped: expected $((before + 2)) (the original $before + the other user's 2)"
grep -q "gave back the $((during - before)) pages toed reserved" "$TMP/toed.log" || fail "toed did not log the release"
say "after toed stopped: $after (toed's $((during - before)) given back, the other user's 2 kept)"

# toed never lowers a count it did not raise: already enough pages, nothing to give back
echo "$want" >"$NR"
: >"$TMP/toed.log"
start_notify
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "toed did not get ready (second run)"
stop_toed TERM
[ "$(cat "$NR")" -eq "$want" ] || fail "toed changed vm.nr_hugepages it did not raise: $(cat "$NR"), not $want"
say "a count toed did not raise is left alone"

# with --user toed cannot write the sysctl itself: its keeper process (still root) gives the pages
# back once toed is gone, also after kill -9
if id nobody >/dev/null 2>&1; then
	echo "$before" >"$NR"
	for how in TERM KILL; do
		: >"$TMP/toed.log"
		chmod 755 "$TMP"
		start_notify
		start_toed "$TMP/toed.conf" --user nobody
		wait_for "$TMP/notify.log" 'READY=1' 10 || fail "toed --user nobody did not get ready: $(tail -n 5 "$TMP/toed.log")"
		during=$(cat "$NR")
		[ "$during" -gt "$before" ] || fail "toed --user nobody did not raise vm.nr_hugepages ($during)"
		grep -q "keeper pid" "$TMP/toed.log" || fail "no huge-page keeper with --user: $(tail -n 5 "$TMP/toed.log")"
		if [ $how = KILL ]; then
			kill -KILL "$TOED_PID"
			wait "$TOED_PID" 2>/dev/null
			TOED_PID=
		else
			stop_toed TERM
		fi
		_i=0
		while [ "$(cat "$NR")" -ne "$before" ] && [ $_i -lt 40 ]; do
			sleep 0.05
			_i=$((_i + 1))
		done
		[ "$(cat "$NR")" -eq "$before" ] || fail "--user nobody, SIG$how: vm.nr_hugepages stays $(cat "$NR"), not $before"
		say "--user nobody, SIG$how: the keeper gave back $((during - before)) pages"
	done
else
	say "no user nobody here: the --user case is not checked"
fi

echo "PASS: toed gives back exactly the huge pages it reserved"
exit 0
