#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helpers of trim_qdisc.sh: send bursts of UDP, read what arrived.

trim_tool.py send DST PORT --size BYTES [--srh SEG,...] BURST...
    Send UDP datagrams of BYTES payload to DST (IPv6), one BURST after the
    other from one socket. A BURST is COUNT:FIRST:TCLASS[:gso]: COUNT
    datagrams with traffic class TCLASS, whose payloads start with their
    sequence numbers (4 bytes, from FIRST on), so that a trimmed packet
    still tells which one it was; with "gso", the COUNT payloads go in one
    send() as a UDP GSO batch of BYTES-sized segments. With --srh, every
    packet carries a segment routing header through those segments, in
    order, to DST. One process sends everything so that nothing slower
    than a system call comes between two packets.

trim_tool.py read PCAP PORT
    Print, as one JSON list in arrival order, every IPv6 UDP packet to
    PORT in PCAP: seq, frame length, IPv6 payload length, DSCP, ECN, UDP
    length, and whether the UDP checksum is valid (its pseudo-header
    naming the final destination: the SRH's entry 0).
"""

import argparse
import json
import socket
import struct
import sys

import pcap_mrc

IPV6_TCLASS = 67
IPV6_RTHDR = 57
UDP_SEGMENT = 103


def srh(segs):
    """A type 4 routing header for setsockopt(IPV6_RTHDR) through SEGS, in
    order: entry 0 is the final destination (the kernel writes the send()
    address there), the last entry the first segment."""
    addrs = [bytes(16)] + [socket.inet_pton(socket.AF_INET6, a)
                           for a in reversed(segs)]
    n = len(addrs)
    # next header (the kernel's), hdr ext len, type 4, segments left,
    # last entry, flags, tag
    hdr = struct.pack("!BBBBBBH", 0, 2 * n, 4, n - 1, n - 1, 0, 0)
    return hdr + b"".join(addrs)


def burst(spec):
    """COUNT:FIRST:TCLASS[:gso] as (count, first, tclass, gso)."""
    f = spec.split(":")
    if len(f) not in (3, 4) or (len(f) == 4 and f[3] != "gso"):
        raise argparse.ArgumentTypeError("not COUNT:FIRST:TCLASS[:gso]: " + spec)
    return int(f[0]), int(f[1]), int(f[2]), len(f) == 4


def send(a):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    if a.srh:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RTHDR, srh(a.srh.split(",")))
    for count, first, tclass, gso in a.bursts:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_TCLASS, tclass)
        pay = [struct.pack("!I", first + i) +
               bytes((first + i) & 0xff for _ in range(a.size - 4))
               for i in range(count)]
        if gso:
            s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, a.size)
            s.sendto(b"".join(pay), (a.dst, a.port))
            s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, 0)
        else:
            for p in pay:
                s.sendto(p, (a.dst, a.port))
    s.close()


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def read(a):
    out = []
    for _, _, flen, ip in pcap_mrc.frames(a.pcap):
        if len(ip) < 40 or ip[0] >> 4 != 6:
            continue
        tc = ((ip[0] & 0x0f) << 4) | (ip[1] >> 4)
        plen = struct.unpack("!H", ip[4:6])[0]
        nh, off, final = pcap_mrc.upper_layer(ip)
        if nh != 17 or off + 12 > len(ip):
            continue
        udp = ip[off:40 + plen]
        if struct.unpack("!H", udp[2:4])[0] != a.port:
            continue
        ulen = struct.unpack("!H", udp[4:6])[0]
        pseudo = ip[8:24] + final + struct.pack("!IxxxB", len(udp), 17)
        ok = len(udp) == ulen and csum(pseudo + udp) == 0xffff
        out.append({"seq": struct.unpack("!I", udp[8:12])[0],
                    "frame_len": flen, "plen": plen, "dscp": tc >> 2,
                    "ecn": tc & 3, "udp_len": ulen, "csum_ok": ok})
    json.dump(out, sys.stdout)
    print()


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("dst")
    s.add_argument("port", type=int)
    s.add_argument("--size", type=int, required=True)
    s.add_argument("--srh")
    s.add_argument("bursts", type=burst, nargs="+", metavar="BURST")
    r = sub.add_parser("read")
    r.add_argument("pcap")
    r.add_argument("port", type=int)
    a = ap.parse_args()
    send(a) if a.cmd == "send" else read(a)


if __name__ == "__main__":
    main()
