#!/usr/bin/python3
"""mirror_check.py - compare toe-pcapdump's output with the feed's ground truth.

  mirror_check.py exact FEED TRUTH OUTPUT
      the output is one reset (SYN seen), no gap, and exactly the truth's
      records in order (the "stream" member aside)
  mirror_check.py lossy FEED TRUTH OUTPUT
      the mirror lost data: one reset, at least one loss gap (timeout,
      window, acked or closed); every record printed is a truth record, in truth order; a
      STEP message of the feed that overlaps a declared gap (any reason) has
      none of its records printed, every other message has all of them.

FEED is the STEP byte stream the exchange sent (its offsets are the stream
offsets: the connection was followed from its SYN), TRUTH the JSON lines of
toe-fastgen --truth. Exit status 0 when the check holds, 1 otherwise.
"""
import json
import re
import sys

STREAM_RE = re.compile(r'^(\{"template":\d+,)"stream":\d+,')


def messages(feed):
    """(offset, length, MsgSeqNum) of every STEP message in the feed."""
    out, pos = [], 0
    while pos < len(feed):
        if not feed.startswith(b"8=STEP.", pos):
            raise ValueError("feed: no 8=STEP at offset %d" % pos)
        k = feed.index(b"\x019=", pos) + 3
        e = feed.index(b"\x01", k)
        body = int(feed[k:e])
        end = e + 1 + body + 7
        s = feed.index(b"\x0134=", e, end) + 4
        seq = int(feed[s:feed.index(b"\x01", s)])
        out.append((pos, end - pos, seq))
        pos = end
    return out


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("exact", "lossy"):
        sys.stderr.write(__doc__)
        return 2
    mode = sys.argv[1]
    feed = open(sys.argv[2], "rb").read()
    truth = open(sys.argv[3]).read().splitlines()
    lines = open(sys.argv[4]).read().splitlines()
    fails = []

    recs, gaps, resets = [], [], []
    for ln in lines:
        obj = json.loads(ln)
        if "event" in obj:
            (gaps if obj["event"] == "gap" else resets).append(obj)
            continue
        m = STREAM_RE.match(ln)
        if not m:
            fails.append("record without \"stream\" after \"template\": " + ln[:120])
            continue
        recs.append((STREAM_RE.sub(r"\1", ln), obj["msg_seq"]))

    if len(resets) != 1 or resets[0].get("reason") != "syn":
        fails.append("expected one reset (syn), got %s" % resets)
    streams = {r["stream"] for r in resets} | {g["stream"] for g in gaps}
    if len(streams) > 1:
        fails.append("more than one stream: %s" % sorted(streams))

    if mode == "exact":
        if gaps:
            fails.append("%d gaps, expected none: %s" % (len(gaps), gaps[:3]))
        got = [r for r, _ in recs]
        if got != truth:
            n = next((i for i, (a, b) in enumerate(zip(got, truth)) if a != b), min(len(got), len(truth)))
            fails.append("records differ from the truth: %d printed, %d in the truth, first difference at "
                         "record %d" % (len(got), len(truth), n + 1))
            if n < len(got):
                fails.append("  got   " + got[n][:200])
            if n < len(truth):
                fails.append("  truth " + truth[n][:200])
        print("exact: %d records, %d gaps" % (len(got), len(gaps)))
    else:
        loss = [g for g in gaps if g["reason"] in ("timeout", "window", "acked", "closed")]
        if not loss:
            fails.append("no loss gap: the mirror leg lost nothing, the run tests nothing")
        # every printed record is in the truth, in truth order
        t = 0
        for r, _ in recs:
            while t < len(truth) and truth[t] != r:
                t += 1
            if t == len(truth):
                fails.append("record not in the truth (or out of order): " + r[:200])
                break
            t += 1
        by_seq = {}
        for ln in truth:
            by_seq.setdefault(json.loads(ln)["msg_seq"], []).append(ln)
        got_seq = {}
        for r, seq in recs:
            got_seq.setdefault(seq, []).append(r)
        lost_msgs = kept_msgs = 0
        for off, length, seq in messages(feed):
            hit = any(g["offset"] < off + length and g["offset"] + g["length"] > off for g in gaps)
            got = got_seq.get(seq, [])
            if hit:
                lost_msgs += 1
                if got:
                    fails.append("message %d (offset %d) overlaps a gap but %d of its records were printed"
                                 % (seq, off, len(got)))
            else:
                kept_msgs += 1
                if got != by_seq.get(seq, []):
                    fails.append("message %d (offset %d) touches no gap but its records are %d of %d"
                                 % (seq, off, len(got), len(by_seq.get(seq, []))))
        print("lossy: %d records of %d, %d gaps (%d loss: %d bytes), %d messages kept, %d lost"
              % (len(recs), len(truth), len(gaps), len(loss), sum(g["length"] for g in loss), kept_msgs,
                 lost_msgs))
    for f in fails[:20]:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
