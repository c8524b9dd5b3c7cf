/* net_arp.h - ARP responder and next-hop resolver (synthesisable subset).
 *
 * Responder: net_arp_input() answers a request for one of our addresses
 * (struct net_cfg) by writing the reply frame into a caller buffer; the reply
 * carries the request's VLAN tags unchanged and goes to the requester's MAC.
 *
 * Resolver: a table of NET_ARP_ENTRIES (IPv4 -> MAC) entries, each free,
 * pending (a request is outstanding) or resolved. Times are nanoseconds given
 * by the caller (any monotonic clock). Learning follows RFC 826: any ARP
 * packet refreshes an existing entry for its sender; a new entry is created
 * only from packets addressed to one of our IPs. net_arp_resolve() returns a
 * resolved MAC or creates a pending entry and writes a broadcast request
 * frame. Pending entries unanswered for pending_ns (500 ms) are dropped and
 * counted (arp.drop_pending_timeout) by net_arp_expire() or when met again.
 *
 * Replacement when the table is full: a free slot, else an expired pending
 * entry, else the least recently used resolved entry (arp.evicted); pending
 * entries still waiting are never replaced (arp.drop_table_full instead).
 * Lookups are a linear scan of the 128 entries.
 *
 * Frames written are Ethernet II without FCS, zero-padded to 60 bytes.
 */
#ifndef NET_ARP_H
#define NET_ARP_H

#include <stdint.h>
#include "net_pkt.h"
#include "net_cfg.h"
#include "net_counters.h"

#define NET_ARP_ENTRIES 128
#define NET_ARP_PENDING_NS 500000000ull /* 500 ms */
#define NET_ARP_LEN 28u                /* Ethernet/IPv4 ARP packet */
#define NET_ARP_FRAME_MAX 60u          /* largest frame net_arp_* writes (with one tag: 46 padded to 60) */

#define NET_ARP_OP_REQUEST 1
#define NET_ARP_OP_REPLY 2

enum net_arp_state { NET_ARP_FREE = 0, NET_ARP_PENDING = 1, NET_ARP_RESOLVED = 2 };

/* net_arp_resolve() results */
enum net_arp_result {
	NET_ARP_FAIL = 0,     /* nothing done: table full, no address or no buffer space (counted) */
	NET_ARP_WAIT = 1,     /* pending; *out_len > 0 when a new request frame was written */
	NET_ARP_OK = 2,       /* resolved: mac filled */
};

struct net_arp_entry {
	uint32_t ip;
	uint8_t mac[6];
	uint8_t state;   /* enum net_arp_state */
	uint8_t pad;
	uint64_t ts_ns;  /* pending: when the request was sent; resolved: last learned */
	uint64_t used_ns; /* last learned or looked up (LRU replacement) */
};

struct net_arp {
	struct net_arp_entry e[NET_ARP_ENTRIES];
	uint64_t pending_ns; /* timeout of pending entries; NET_ARP_PENDING_NS by default */
};

void net_arp_init(struct net_arp *a);

/* Index of the entry for ip (any state but free), or -1. No side effects. */
int net_arp_find(const struct net_arp *a, uint32_t ip);

/* Handle an ARP packet (pkt from net_rx, verdict NET_RX_ARP). Learns as
 * described above; for a request to one of our addresses writes the reply
 * frame into out[0..cap) and returns its length, else returns 0. */
uint32_t net_arp_input(struct net_arp *a, const struct net_cfg *cfg, struct net_stats *st, const struct net_pkt *pkt,
		       uint64_t now_ns, uint8_t *out, uint32_t cap);

/* Resolve a next hop. OK: mac[] filled. WAIT: pending; when no request was
 * outstanding a request frame is written to out and *out_len set (else 0).
 * The request's source is the configured address whose subnet holds ip (else
 * the first), tagged with that address's VLAN if any. */
enum net_arp_result net_arp_resolve(struct net_arp *a, const struct net_cfg *cfg, struct net_stats *st, uint32_t ip,
				    uint64_t now_ns, uint8_t mac[6], uint8_t *out, uint32_t cap, uint32_t *out_len);

/* Drop pending entries unanswered for pending_ns; returns how many. */
uint32_t net_arp_expire(struct net_arp *a, struct net_stats *st, uint64_t now_ns);

#endif
