/* lossy_both_tc.bpf.c - lossy_tc.bpf.c for both directions of a routed link (test_toed_tcp.sh).
 *
 * Built by the Makefile like every tests/integration/ program: 2% of the TCP
 * segments that carry data or a pure ACK are dropped, 2% duplicated and 2%
 * delayed through HTB class 1:2 (a slow class the test sets up on the same device)
 * so that they arrive after later segments. Attached to the egress of both
 * of the router's interfaces, it impairs the exchange's data toward toed and
 * toed's ACKs toward the exchange.
 */
#define DROP_PERMILLE 20
#define DUP_PERMILLE 20
#define REORDER_PERMILLE 20
#define PURE_ACKS 1
#include "lossy_tc.bpf.c"
