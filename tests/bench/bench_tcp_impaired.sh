#!/bin/sh
# bench_tcp_impaired.sh - a million records through toed's own connection over a path impaired both ways.
#
# Run by tests/bench/run.sh (`make bench`): tests/integration/test_toed_tcp.sh's routed part
# (TOE_TCP_ONLY=gateway) with TOE_TCP_BIG (default here 1000000 records at TOE_TCP_BIG_RATE, 100000/s):
# loss, duplication and reordering on both directions of the router hop, every record checked, ss -ti
# sampled. Prints the test's lines and one RESULT per both-ways run (transfer time against its paced
# length, Linux's retransmissions, the largest RTO backoff). Exit status: the test's (77 skips).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
TOE_TCP_ONLY=gateway TOE_TCP_BIG=${TOE_TCP_BIG:-1000000} bash "$here/../integration/test_toed_tcp.sh" >"$out" 2>&1
rc=$?
cat "$out"
sed -n 's/^== \(gateway-[^:]*-both[^:]*\): both ways impaired: \([0-9]*\) ms (paced \([0-9]*\) ms); ss -ti: retrans \([0-9]*\), max rto \([0-9.]*\) ms, max backoff \([0-9]*\).*/RESULT {"name":"tcp-impaired-\1","unit":"ms","transfer_ms":\2,"paced_ms":\3,"linux_retrans":\4,"max_rto_ms":\5,"max_backoff":\6}/p' "$out"
exit $rc
