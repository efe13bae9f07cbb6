#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ICRC test vectors, from a reference written from the RoCEv2 rules alone.

The reference: CRC-32 (zlib's) over 8 bytes of 0xff, the IP header with the
fields routers change set to all ones (IPv4: TOS, TTL, checksum; IPv6:
traffic class, flow label, hop limit), the UDP header with its checksum
set to all ones, BTH with byte 4 set to all ones, and the rest up to the
ICRC, stored least significant byte first. It is first checked against a
RoCEv2 CNP that a Mellanox ConnectX-4 Lx sent, as scapy's RoCE tests keep
it (secdev/scapy, test/contrib/roce.uts, "RoCE CNP captured on
ConnectX-4 Lx"); nothing here comes from the module.

Then, for MRC over SRv6 (Documentation/networking/mrc-1.0-mapping.rst,
ICRC), each IPv6 packet is first put in the form it has at its final
destination with no extension header: the SRH goes, the destination is
the SRH's last segment, the payload length the UDP length, the next
header UDP. The vectors are random packets, with and without an SRH,
each printed as a line for icrc_test: source, final destination, UDP
ports and length, MRC headers, payload and pad, and the ICRC, in hex.

Usage: vectors.py [COUNT [SEED]]
"""
import ipaddress
import random
import struct
import sys
import zlib

CONNECTX4_CNP = bytes.fromhex(
    "e41d2dab2bc27cfe90643b32080045c2"
    "003c718c400040119161 0a0011010a00".replace(" ", "")
    + "12010000 12b70028 00008100 ffff4000".replace(" ", "")
    + "01180000000000000000000000000000"
    + "000000000000 82fd002a".replace(" ", ""))


def icrc(ip_hdr, udp_and_rest):
    """The RoCEv2 ICRC of a packet: its IP header, then UDP onwards
    without the ICRC. Returns the 4 bytes as they go on the wire."""
    ip = bytearray(ip_hdr)
    if ip[0] >> 4 == 4:
        ip[1] = 0xFF
        ip[8] = 0xFF
        ip[10:12] = b"\xff\xff"
    else:
        ip[0] |= 0x0F
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF
    rest = bytearray(udp_and_rest)
    rest[6:8] = b"\xff\xff"
    rest[8 + 4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(rest))
    return struct.pack("<I", crc)


def at_destination(pkt):
    """An IPv6 packet with an optional SRH (routing type 4) as it would be
    at its final destination with no extension header: (IPv6 header,
    UDP onwards, final destination)."""
    nh = pkt[6]
    dst = pkt[24:40]
    off = 40
    if nh == 43:
        hdrlen = (pkt[off + 1] + 1) * 8
        assert pkt[off + 2] == 4
        dst = pkt[off + 8:off + 24]        # segments[0], the last
        nh = pkt[off]
        off += hdrlen
    assert nh == 17
    udp = pkt[off:]
    hdr = bytearray(pkt[:40])
    hdr[4:6] = udp[4:6]
    hdr[6] = 17
    hdr[24:40] = dst
    return bytes(hdr), udp, dst


def check_reference():
    pkt = CONNECTX4_CNP[14:]
    ihl = (pkt[0] & 0x0F) * 4
    got = icrc(pkt[:ihl], pkt[ihl:-4])
    if got != pkt[-4:]:
        sys.exit("vectors.py: the reference does not match the ConnectX-4 "
                 "Lx capture: %s, not %s" % (got.hex(), pkt[-4:].hex()))


def addr(rng):
    return bytes([0x20, 0x01, 0x0D, 0xB8] +
                 [rng.randrange(256) for _ in range(12)])


def packet(rng):
    """A random MRC 1.0-like IPv6 packet, with an SRH one time in two."""
    src, final = addr(rng), addr(rng)
    hdrs = bytes([rng.choice([0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xDC,
                              0xDD, 0xDE])] +
                 [rng.randrange(256) for _ in range(11)])
    hdrs += bytes(rng.randrange(256) for _ in range(rng.choice([0, 4, 24,
                                                                 28, 36])))
    plen = rng.choice([0, 1, 3, 4, 100, 1400, 8944, rng.randrange(9000)])
    payload = bytes(rng.randrange(256) for _ in range(plen))
    payload += b"\0" * (-plen % 4)
    sport, dport = rng.randrange(1024, 65536), 4971
    ulen = 8 + len(hdrs) + len(payload) + 4
    udp = struct.pack(">HHHH", sport, dport, ulen, rng.randrange(65536))
    udp += hdrs + payload
    flow = rng.randrange(1 << 28) | (6 << 28)
    if rng.randrange(2):
        nseg = rng.randrange(1, 4)
        segs = [final] + [addr(rng) for _ in range(nseg - 1)]
        left = rng.randrange(nseg)              # somewhere on the way
        srh = bytes([17, 2 * nseg, 4, left, nseg - 1, 0, 0, 0])
        srh += b"".join(segs)
        ip = struct.pack(">IHBB", flow, len(srh) + ulen, 43,
                         rng.randrange(256)) + src + segs[left]
        pkt = ip + srh + udp
    else:
        ip = struct.pack(">IHBB", flow, ulen, 17, rng.randrange(256))
        pkt = ip + src + final + udp
    hdr6, udp_on, dst = at_destination(pkt)
    assert dst == final
    want = icrc(hdr6, udp_on)
    return "%s %s %d %d %d %s %s %s" % (
        ipaddress.IPv6Address(src), ipaddress.IPv6Address(final), sport,
        dport, ulen, hdrs.hex(), payload.hex() or "-", want.hex())


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    check_reference()
    for _ in range(count):
        print(packet(rng))


if __name__ == "__main__":
    main()
