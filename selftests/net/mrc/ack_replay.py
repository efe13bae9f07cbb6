#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helper of multipath.sh: deliver old ACKs after newer ones.

ack_replay.py --dev DEV --ready FILE --count FILE [--min-gain N] [--max N]

Runs in a spine's namespace and watches the MRC ACKs that leave through
DEV (toward the sender). ACKs take different paths, so one can arrive
after a newer one; this makes it happen on purpose, on one path. For each
connection and cumulative PSN it keeps the first ACK seen: of those with
that cumulative PSN, it acknowledges the fewest packets and so carries
the window of the earliest moment. When a later ACK with the same
cumulative PSN acknowledges at least N more packets (SACK bits) and
advertises a smaller window, the first one is sent again, unchanged,
through DEV: the sender sees an old ACK after a newer one, with a window
larger than the receiver's current one. Every frame is sent as it was
captured, so the sender cannot tell it from a late copy.

Creates the --ready FILE once capturing; on SIGTERM or SIGINT writes the
number of ACKs sent again to the --count FILE and exits 0.
"""

import argparse
import ctypes
import signal
import socket
import struct
import sys

from mrc_pkt import ACK, HDR, MRC_PORT, VERSION
from trim_tool import csum

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26
ETH_HLEN = 14
IPV6_EXT = (0, 43, 60)   # hop-by-hop, routing, destination options
IPPROTO_UDP = 17


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8),
                ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16),
                ("filter", ctypes.POINTER(SockFilter))]


def outgoing_only(sock):
    """Attach a classic BPF filter that keeps only frames leaving the
    device, so that the data the spine forwards the other way never
    reaches this process."""
    # ldb [SKF_AD_OFF + SKF_AD_PKTTYPE]; jeq #OUTGOING; ret #-1; ret #0
    prog = (SockFilter * 4)(SockFilter(0x30, 0, 0, 0xfffff000 + 4),
                            SockFilter(0x15, 0, 1, PACKET_OUTGOING),
                            SockFilter(0x06, 0, 0, 0xffffffff),
                            SockFilter(0x06, 0, 0, 0))
    fprog = SockFprog(4, prog)
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                    bytes(ctypes.string_at(ctypes.addressof(fprog),
                                           ctypes.sizeof(fprog))))


def with_udp_csum(frame, off):
    """frame with the UDP checksum of the datagram at off filled in.

    A frame captured as it leaves a veth may carry only the partial
    checksum of an offload that veth never completes; a frame sent from a
    packet socket is checked in full by the receiver. Once the spine has
    done End, the IPv6 destination is the final one, as the pseudo-header
    needs (RFC 8200, 8.1).
    """
    udp = bytearray(frame[off:])
    udp[6:8] = b"\0\0"
    pseudo = (frame[ETH_HLEN + 8:ETH_HLEN + 40] +
              struct.pack("!I3xB", len(udp), IPPROTO_UDP))
    c = (~csum(pseudo + bytes(udp)) & 0xffff) or 0xffff
    udp[6:8] = struct.pack("!H", c)
    return frame[:off] + bytes(udp)


def mrc_ack(frame):
    """(dcid, cum, sacked, rwnd, udp offset) of an MRC ACK in an Ethernet
    frame."""
    if len(frame) < ETH_HLEN + 40 or frame[12:14] != b"\x86\xdd":
        return None
    nh, off = frame[ETH_HLEN + 6], ETH_HLEN + 40
    while nh in IPV6_EXT and off + 2 <= len(frame):
        nh, off = frame[off], off + (frame[off + 1] + 1) * 8
    if nh != IPPROTO_UDP or off + 8 + 68 > len(frame):
        return None
    if struct.unpack_from("!H", frame, off + 2)[0] != MRC_PORT:
        return None
    udp, off = off, off + 8
    ver, typ, _, dcid, _, _, _ = HDR.unpack_from(frame, off)
    if ver != VERSION or typ != ACK:
        return None
    cum = struct.unpack_from("!I", frame, off + HDR.size)[0]
    sack = struct.unpack_from("!4Q", frame, off + HDR.size + 4)
    rwnd = struct.unpack_from("!I", frame, off + HDR.size + 40)[0]
    return dcid, cum, sum(bin(w).count("1") for w in sack), rwnd, udp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--count", required=True)
    ap.add_argument("--min-gain", type=int, default=3)
    ap.add_argument("--max", type=int, default=1000)
    args = ap.parse_args()

    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                         socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    outgoing_only(sock)
    sock.bind((args.dev, 0))
    replayed = 0

    def stop(*_):
        with open(args.count, "w") as f:
            f.write("%d\n" % replayed)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    open(args.ready, "w").close()

    # dcid -> [cum, sacked, rwnd, frame, sacked when last sent again]
    first = {}
    while True:
        frame = sock.recv(65536)
        a = mrc_ack(frame)
        if not a:
            continue
        dcid, cum, sacked, rwnd, udp = a
        f = first.get(dcid)
        if not f or f[0] != cum:
            first[dcid] = [cum, sacked, rwnd, with_udp_csum(frame, udp),
                           sacked]
            continue
        if (replayed < args.max and sacked >= f[4] + args.min_gain and
                rwnd < f[2]):
            sock.send(f[3])
            f[4] = sacked
            replayed += 1


if __name__ == "__main__":
    main()
