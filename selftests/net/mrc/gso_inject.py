#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write one GSO packet to MRC's UDP port through a tap with a virtio-net
header, as a VM or a tun user can: gso_inject.py KIND, KIND udp (UDP
fragmentation offload, which cannot hold MRC packets) or udp_l4 (UDP
segmentation, 6.2 and later). Run in a network namespace of its own; the
tap gets fd00:9::1 and the packet comes from fd00:9::2. Exits 0 once the
packet is written."""

import fcntl
import os
import socket
import struct
import subprocess
import sys

TUNSETIFF = 0x400454ca
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000
NEEDS_CSUM = 1
GSO = {"udp": 3, "udp_l4": 5}
SEG, SEGS = 1000, 3


def main():
    kind = sys.argv[1]
    port = int(open("/sys/module/mrc/parameters/udp_port").read())
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"gso0",
                                          IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    for cmd in ("ip link set gso0 up",
                "ip addr add fd00:9::1/64 dev gso0 nodad"):
        subprocess.run(cmd.split(), check=True)
    mac = bytes.fromhex(open("/sys/class/net/gso0/address").read()
                        .strip().replace(":", ""))
    payload = bytes(SEG * SEGS)
    src = socket.inet_pton(socket.AF_INET6, "fd00:9::2")
    dst = socket.inet_pton(socket.AF_INET6, "fd00:9::1")
    ulen = 8 + len(payload)
    # A packet whose checksum is left to the NIC (NEEDS_CSUM) carries the
    # pseudo-header's sum there; IPv6 refuses 0.
    pseudo = src + dst + struct.pack("!II", ulen, 17)
    total = sum(struct.unpack("!%dH" % (len(pseudo) // 2), pseudo))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    udp = struct.pack("!HHHH", port, port, ulen, total or 0xffff)
    ip6 = struct.pack("!IHBB16s16s", 6 << 28, ulen, 17, 64, src, dst)
    eth = mac + bytes.fromhex("020000000002") + b"\x86\xdd"
    # flags, gso_type, hdr_len, gso_size, csum_start, csum_offset
    vnet = struct.pack("<BBHHHH", NEEDS_CSUM, GSO[kind], 14 + 40 + 8, SEG,
                       14 + 40, 6)
    os.write(fd, vnet + eth + ip6 + udp + payload)
    os.close(fd)


main()
