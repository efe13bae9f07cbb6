#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""interop10_app.py: the AF_MRC end of interop10.sh.

One AF_MRC socket (SOCK_SEQPACKET) connected with no handshake by the
MRC_PEER socket option (uapi/linux/mrc.h, struct mrc_peer), to a peer set
up out of band with the same QPNs and initial PSNs, swapped:

    interop10_app.py ADDR --local-qpn 5 --peer-qpn 6 --local-psn 0 \\
        --peer-psn 16777200 [--sizes 1,1000] [--seed 1] [--expect 4]

It sends a message of seeded random content per --sizes and prints "tx
MSN LENGTH SHA256" for each, receives --expect messages and prints "rx
MSN LENGTH SHA256" for each, waits until the peer has acknowledged every
byte it sent, and prints the connection's counters (MRC_INFO) as "info
NAME=VALUE ...". --ready FILE is written, once the socket is connected,
with "mss=N rcv_wnd=N": what the peer must be told (the largest payload
this end takes, the window it offers). --wait FILE holds the socket open
until FILE exists; it is then closed with SO_LINGER 0 (a reset), since
the FIN is not yet in the MRC 1.0 format. Exits 0 if everything was sent,
acknowledged and received in time.
"""
import argparse
import hashlib
import os
import random
import select
import socket
import struct
import sys
import time

SOL_MRC, MRC_INFO, MRC_PEER = 299, 1, 3
MRC_MSG_MAX = 4 << 20
# struct mrc_info up to mrci_pad2: 4 bytes, 11 __u32, 20 __u64, 4 __u32.
INFO_FMT = "=4B11I20Q4I"
INFO_NAMES = ("state shutdown fin_flags pad mss srtt_us rttvar_us rto_us "
              "cwnd ssthresh inflight peer_rwnd rcv_wnd local_cid "
              "remote_cid bytes_sent bytes_acked bytes_received msgs_sent "
              "msgs_received pkts_sent pkts_retrans pkts_received pkts_dup "
              "sack_recovered rtos ecn_marks pkts_trimmed trim_retrans "
              "busy_us app_limited_us cwnd_limited_us wnd_limited_us "
              "rwnd_limited_us sndbuf_limited_us rcvbuf rcv_rtt_us sndbuf "
              "pad2").split()
SHOWN = ("mss srtt_us rto_us cwnd inflight peer_rwnd rcv_wnd bytes_sent "
         "bytes_acked bytes_received msgs_sent msgs_received pkts_sent "
         "pkts_retrans pkts_received pkts_dup sack_recovered rtos "
         "pkts_trimmed trim_retrans").split()


def family():
    try:
        with open("/sys/module/mrc/parameters/family", encoding="ascii") as f:
            return int(f.read())
    except OSError:
        return 25


def info(s):
    raw = s.getsockopt(SOL_MRC, MRC_INFO, struct.calcsize(INFO_FMT))
    raw += bytes(struct.calcsize(INFO_FMT) - len(raw))
    return dict(zip(INFO_NAMES, struct.unpack(INFO_FMT, raw)))


def wait_file(path, deadline):
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("addr", help="the peer's IPv6 address")
    p.add_argument("--port", type=int, default=7000,
                   help="the peer's AF_MRC port (nothing on the MRC 1.0 "
                   "wire carries it; not 0)")
    for name in ("--local-qpn", "--peer-qpn", "--local-psn", "--peer-psn"):
        p.add_argument(name, type=int, required=True)
    p.add_argument("--peer-mss", type=int, default=0,
                   help="the largest payload the peer takes (0: ours)")
    p.add_argument("--peer-rwnd", type=int, default=0,
                   help="the peer's initial window (0: ours)")
    p.add_argument("--sizes", default="", help="message sizes to send")
    p.add_argument("--seed", type=int, default=1, help="content seed")
    p.add_argument("--expect", type=int, default=0,
                   help="messages to receive")
    p.add_argument("--rcvbuf", type=int, default=0, help="SO_RCVBUF")
    p.add_argument("--read-delay", type=float, default=0,
                   help="seconds to wait, once the first message is in, "
                   "before reading")
    p.add_argument("--ready", help="file to write once connected")
    p.add_argument("--wait", help="file to wait for before closing")
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()
    deadline = time.monotonic() + a.timeout
    ok = True

    s = socket.socket(family(), socket.SOCK_SEQPACKET, 0)
    if a.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    addr = struct.pack("=H", family()) + struct.pack("!H", a.port) + \
        struct.pack("=I", 0) + socket.inet_pton(socket.AF_INET6, a.addr)
    s.setsockopt(SOL_MRC, MRC_PEER, addr + struct.pack(
        "=7I", a.local_qpn, a.peer_qpn, a.local_psn, a.peer_psn,
        a.peer_mss, a.peer_rwnd, 0))
    s.settimeout(a.timeout)
    i = info(s)
    print("connected: mss=%d rcv_wnd=%d local_cid=%d remote_cid=%d" %
          (i["mss"], i["rcv_wnd"], i["local_cid"], i["remote_cid"]),
          flush=True)
    if a.ready:
        with open(a.ready + ".tmp", "w", encoding="ascii") as f:
            f.write("mss=%d rcv_wnd=%d\n" % (i["mss"], i["rcv_wnd"]))
        os.rename(a.ready + ".tmp", a.ready)

    rng = random.Random(a.seed)
    sizes = [int(x) for x in a.sizes.split(",") if x]
    for n, size in enumerate(sizes):
        data = rng.randbytes(size)
        s.send(data)
        print("tx", n, size, hashlib.sha256(data).hexdigest(), flush=True)
    if a.read_delay and a.expect:
        select.select([s], [], [], max(0, deadline - time.monotonic()))
        time.sleep(a.read_delay)
    try:
        for n in range(a.expect):
            data = s.recv(MRC_MSG_MAX + 1)
            print("rx", n, len(data), hashlib.sha256(data).hexdigest(),
                  flush=True)
    except OSError as e:
        print("recv: %s" % e, file=sys.stderr)
        ok = False
    # Everything sent acknowledged.
    while True:
        i = info(s)
        if i["bytes_acked"] == i["bytes_sent"] and not i["inflight"]:
            break
        if time.monotonic() > deadline:
            print("not acknowledged: %d of %d bytes" %
                  (i["bytes_acked"], i["bytes_sent"]), file=sys.stderr)
            ok = False
            break
        time.sleep(0.02)
    print("info " + " ".join("%s=%d" % (k, i[k]) for k in SHOWN),
          flush=True)
    if a.wait and not wait_file(a.wait, deadline):
        print("%s did not appear" % a.wait, file=sys.stderr)
        ok = False
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
