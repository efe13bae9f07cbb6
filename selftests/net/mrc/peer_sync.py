#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A barrier between the two guests of vm-pair, over their link.

peer_sync.py ROLE PEER NAME [--send FILE] [--recv FILE] [--timeout S]

Both guests call it with the same NAME at the same point of a test; each
returns once the other has arrived. Guest a (ROLE a) listens on TCP port
7990 of every address, guest b connects to PEER there, retrying until the
timeout. Each side sends its NAME and the content of --send FILE (empty
without it) and writes what the other sent to --recv FILE: this is how
the guests swap their counters. Exits 1 if the two NAMEs differ (the
guests are out of step) and 2 on timeout, saying so.
"""

import argparse
import json
import socket
import sys
import time

PORT = 7990


def exchange(conn, msg, deadline):
    conn.settimeout(max(deadline - time.monotonic(), 0.1))
    conn.sendall(json.dumps(msg).encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionResetError("the peer closed the barrier")
        buf += chunk
    return json.loads(buf)


def meet_a(msg, deadline):
    lsk = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    lsk.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsk.bind(("::", PORT))
    lsk.listen(1)
    lsk.settimeout(max(deadline - time.monotonic(), 0.1))
    conn, _ = lsk.accept()
    # Closed before the exchange, so that b's next barrier never lands
    # in this one's backlog.
    lsk.close()
    with conn:
        return exchange(conn, msg, deadline)


def meet_b(msg, peer, deadline):
    while True:
        try:
            with socket.create_connection((peer, PORT), timeout=2) as conn:
                return exchange(conn, msg, deadline)
        except OSError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=("a", "b"))
    ap.add_argument("peer")
    ap.add_argument("name")
    ap.add_argument("--send")
    ap.add_argument("--recv")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()

    data = ""
    if args.send:
        with open(args.send) as f:
            data = f.read()
    msg = {"name": args.name, "data": data}
    deadline = time.monotonic() + args.timeout
    try:
        if args.role == "a":
            got = meet_a(msg, deadline)
        else:
            got = meet_b(msg, args.peer, deadline)
    except (OSError, ValueError) as e:
        print("barrier %s: no peer within %g s (%s)" % (args.name, args.timeout, e))
        return 2
    if got.get("name") != args.name:
        print("barrier %s: the peer is at %s instead" % (args.name, got.get("name")))
        return 1
    if args.recv:
        with open(args.recv, "w") as f:
            f.write(got.get("data", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
