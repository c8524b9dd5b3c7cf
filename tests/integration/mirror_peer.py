#!/usr/bin/python3
"""mirror_peer.py - the two ends of the real TCP connection in test_mirror_traffic.sh.

  mirror_peer.py serve ADDR PORT FEED [RATE [TAIL]]
                                               exchange: listen, accept one vendor, send FEED
                                               in 4 KB writes at about RATE bytes/s, close; with
                                               TAIL, the last TAIL bytes and the FIN go out with
                                               IP TOS 0x28 once every earlier byte is acknowledged
                                               (lossy_tc.bpf.c's tail mode drops exactly those)
  mirror_peer.py fetch ADDR PORT OUT [RCVBUF]  vendor: connect (retrying for 10 s), read until
                                               EOF into OUT; RCVBUF caps the advertised window

Exit status 0 when the whole file went through, 1 otherwise.
"""
import fcntl
import socket
import struct
import sys
import termios
import time

TAIL_TOS = 0x28


def wait_acked(conn, timeout):
    """Wait until the socket has no unacknowledged or unsent byte (SIOCOUTQ == 0)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if struct.unpack("i", fcntl.ioctl(conn.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0] == 0:
            return True
        time.sleep(0.005)
    return False


def serve(addr, port, path, rate, tail=0):
    data = open(path, "rb").read()
    head = len(data) - tail if 0 < tail < len(data) else len(data)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    ls.settimeout(20)
    conn, _ = ls.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    chunk = 4096
    start = time.monotonic()
    for off in range(0, head, chunk):
        conn.sendall(data[off:min(off + chunk, head)])
        ahead = (off + chunk) / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
    if head < len(data):
        if not wait_acked(conn, 10):
            sys.stderr.write("mirror_peer: the head of the feed was not acknowledged in 10 s\n")
            return 1
        conn.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, TAIL_TOS)
        conn.sendall(data[head:])
    conn.shutdown(socket.SHUT_WR)
    conn.settimeout(30)
    while conn.recv(4096):  # wait for the vendor's close
        pass
    conn.close()
    ls.close()
    return 0


def fetch(addr, port, out, rcvbuf):
    deadline = time.monotonic() + 10
    while True:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        try:
            s.connect((addr, port))
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    s.settimeout(60)
    parts = []
    while True:
        d = s.recv(65536)
        if not d:
            break
        parts.append(d)
    s.close()
    with open(out, "wb") as f:
        f.write(b"".join(parts))
    return 0


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("serve", "fetch"):
        sys.stderr.write(__doc__)
        return 2
    addr, port, path = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    extra = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    if sys.argv[1] == "serve":
        return serve(addr, port, path, extra or 2000000, int(sys.argv[6]) if len(sys.argv) > 6 else 0)
    return fetch(addr, port, path, extra)


if __name__ == "__main__":
    sys.exit(main())
