#!/usr/bin/env python3
"""e2e_tcp_diag.py - where the time of bench_e2e_tcp.sh goes (reads an E2E_TCP_DIAG=DIR folder).

For each path (toed's own connection: ex1.pcap, t.sendlog, toed.lat; Linux recv: ex0.pcap, l.sendlog,
sockrx.lat; toed's mirror path, the same bytes mirrored from ve0: ex0.pcap, l.sendlog, mirror.lat) every message is found on the wire by its byte offset in the stream (the send log holds each
message's length; the first data byte is ISN + 1), which splits the one-way time into:
  send -> wire     the sender's send() to the frame leaving the sender's veth (tcpdump on ex1/ex0): time
                   the sender's TCP held the bytes (cwnd, window, pacing, small queues)
  wire -> capture  (toed) the frame on the wire to toed's XDP program stamping it
  wire -> read     the frame on the wire to the reader's read
and prints percentiles, plus the sender's TCP state over the run (ss -tin samples) and the ACKs the
receiver sent. Usage: e2e_tcp_diag.py DIR
"""
import json
import os
import re
import struct
import sys


def pct(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def summary(name, v):
    us = [x / 1000.0 for x in v]
    print("  %-18s n %6d  p50 %9.1f  p90 %9.1f  p99 %9.1f  max %9.1f us" %
          (name, len(us), pct(us, .5), pct(us, .9), pct(us, .99), max(us) if us else float("nan")))


def read_pcap(path):
    """(ts_ns, src_port, dst_port, seq, ack, flags, payload_len, win) per TCP frame."""
    out = []
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        nano = magic == 0xa1b23c4d
        link = struct.unpack("<I", hdr[20:24])[0]
        while True:
            h = f.read(16)
            if len(h) < 16:
                break
            s, frac, incl, orig = struct.unpack("<IIII", h)
            d = f.read(incl)
            ts = s * 1000000000 + (frac if nano else frac * 1000)
            off = 14 if link == 1 else 16  # Ethernet or Linux cooked
            et = struct.unpack(">H", d[off - 2:off])[0]
            if et == 0x8100:
                off += 4
                et = struct.unpack(">H", d[off - 2:off])[0]
            if et != 0x0800:
                continue
            ihl = (d[off] & 15) * 4
            tot = struct.unpack(">H", d[off + 2:off + 4])[0]
            t = off + ihl
            sp, dp, seq, ack, doff, fl, win = struct.unpack(">HHIIBBH", d[t:t + 16])
            plen = tot - ihl - (doff >> 4) * 4
            out.append((ts, sp, dp, seq, ack, fl, plen, win))
    return out


def read_sendlog(path):
    ents = []
    with open(path, "rb") as f:
        if f.read(8) != b"TOESLOG1":
            sys.exit("%s: not a send log" % path)
        while True:
            e = f.read(32)
            if len(e) < 32:
                break
            ents.append(struct.unpack("<QQQII", e))  # msg_seq, send_ns, first_biz, nrecords, len
    return ents


def read_lat(path):
    d = {}
    for line in open(path):
        j = json.loads(line)
        d[j["msg_seq"]] = j
    return d


def path_report(name, pcap, slog, lat, sport):
    print("== %s" % name)
    frames = read_pcap(pcap)
    ents = read_sendlog(slog)
    lat = read_lat(lat)
    syn = [f for f in frames if f[1] == sport and f[5] & 0x02]
    if not syn:
        print("  no SYN-ACK from the sender in the capture")
        return
    isn = syn[0][3]
    data = [f for f in frames if f[1] == sport and f[6] > 0]
    acks = [f for f in frames if f[2] == sport]
    # the first time each byte left: first transmissions only
    starts, off = [], 0
    for e in ents:
        starts.append(off)
        off += e[4]
    wire = {}
    j = 0
    segs = sorted(((f[3] - isn - 1) & 0xffffffff, f[6], f[0]) for f in data)
    first_seen = {}
    for s, l, ts in segs:
        if s not in first_seen or ts < first_seen[s][1]:
            first_seen[s] = (l, ts)
    segs = sorted((s, l, ts) for s, (l, ts) in first_seen.items())
    for i, st in enumerate(starts):
        while j < len(segs) and segs[j][0] + segs[j][1] <= st:
            j += 1
        if j < len(segs) and segs[j][0] <= st:
            wire[ents[i][0]] = segs[j][2]
    s2w, w2c, c2r, w2r, s2r = [], [], [], [], []
    for e in ents:
        q, send = e[0], e[1]
        if q not in wire:
            continue
        s2w.append(wire[q] - send)
        m = lat.get(q)
        if not m:
            continue
        if m.get("cap_ns"):  # send -> capture stamp, as toe-verify writes it
            w2c.append(send + m["cap_ns"] - wire[q])
            c2r.append(m["rx_ns"] - send - m["cap_ns"])
        w2r.append(m["rx_ns"] - wire[q])
        if "lat_ns" in m:
            s2r.append(m["lat_ns"])
    summary("send -> read", s2r)
    summary("send -> wire", s2w)
    if w2c:
        summary("wire -> capture", w2c)
        summary("capture -> read", c2r)
    summary("wire -> read", w2r)
    nseg = len(data)
    print("  data segments %d for %d messages (%.2f messages per segment), retransmitted segments %d" %
          (nseg, len(ents), len(ents) / max(1, nseg), nseg - len(first_seen)))
    # ACK delay: a data segment's time to the first ACK that covers it
    ack_ts = sorted((f[0], (f[4] - isn - 1) & 0xffffffff) for f in acks if f[5] & 0x10)
    delays, k, best = [], 0, 0
    for s, l, ts in segs:
        end = s + l
        while k < len(ack_ts) and (ack_ts[k][0] < ts or ack_ts[k][1] < end):
            k += 1
        if k < len(ack_ts):
            delays.append(ack_ts[k][0] - ts)
    print("  pure/any ACKs from the receiver %d" % len(ack_ts))
    summary("segment -> its ACK", delays)


def ss_report(path, ports):
    print("== sender's TCP (ss -tin every 50 ms)")
    cur, samples = None, {p: [] for p in ports}
    for line in open(path):
        if line.startswith("@"):
            continue
        m = re.search(r":(\d+)\s+\S+:\d+", line)
        if m and int(m.group(1)) in ports:
            cur = int(m.group(1))
            continue
        if cur is not None and "cwnd" in line:
            samples[cur].append(line.strip())
            cur = None
    for p in ports:
        v = samples[p]
        if not v:
            print("  port %d: no samples" % p)
            continue

        def field(l, k, cast=float):
            m = re.search(r"(?:^|\s)" + re.escape(k) + r"[:]([\d.]+)", l)
            return cast(m.group(1)) if m else None
        cw = [field(l, "cwnd") for l in v]
        un = [field(l, "unacked") or 0 for l in v]
        rtt = [field(l, "rtt") for l in v]
        nsb = [field(l, "notsent") or 0 for l in v]
        al = sum(1 for l in v if "app_limited" in l)
        print("  port %d: %d samples; cwnd p50 %s max %s; unacked p50 %s max %s; rtt(ms) p50 %s max %s; "
              "notsent bytes p50 %s max %s; app_limited in %d" %
              (p, len(v), pct(cw, .5), max(cw), pct(un, .5), max(un), pct(rtt, .5), max(rtt),
               pct(nsb, .5), max(nsb), al))
        print("    last: %s" % v[-1][:400])


def main():
    d = sys.argv[1]
    j = lambda n: os.path.join(d, n)
    path_report("toed's own connection (ex1 -> tt0)", j("ex1.pcap"), j("lat.t.sendlog"), j("lat.toed.lat"), 9401)
    path_report("Linux recv (ex0 -> ve0)", j("ex0.pcap"), j("lat.l.sendlog"), j("lat.sockrx.lat"), 9402)
    if os.path.exists(j("lat.mirror.lat")):  # the same bytes, mirrored from ve0 to toed's mirror port
        path_report("toed's mirror path (ex0 -> ve0, tc mirror -> vm1)", j("ex0.pcap"), j("lat.l.sendlog"),
                    j("lat.mirror.lat"), 9402)
    if os.path.exists(j("ss.txt")):
        ss_report(j("ss.txt"), [9401, 9402])
    if os.path.exists(j("stats.json")):
        try:
            s = json.load(open(j("stats.json")))
            c = s["tcp_connections"][0]
            print("== toed's connection: " + ", ".join("%s %s" % (k, c[k]) for k in sorted(c)
                                                       if isinstance(c[k], (int, float))))
        except (ValueError, KeyError, IndexError) as e:
            print("== toed's stats unreadable: %s" % e)


if __name__ == "__main__":
    main()
