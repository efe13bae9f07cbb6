# SPDX-License-Identifier: GPL-2.0
"""MRC packets as bytes, for the tests that craft their own: the header
layouts of include/mrc_wire.h (Documentation/networking/mrc.rst, "Wire
format"). No scapy here, so that a test that only needs to send a few
packets over a UDP socket starts fast."""

import random
import struct

MRC_PORT = 4797
VERSION = 2
DATA, ACK, NACK, SYN, SYNACK, FIN, RST, PROBE, PROBE_REPLY = range(1, 10)
HDR = struct.Struct("!BBHIIHH")          # version type flags dcid scid ev plen
HDR_LEN = {DATA: 36, ACK: 68, NACK: 24, SYN: 40, SYNACK: 40, FIN: 20,
           RST: 20, PROBE: 24, PROBE_REPLY: 24}
MSG_MAX = 4 << 20
U32 = 0xffffffff
PSN = 0xffffff                          # PSNs are 24 bits
WND = 256


def hdr(typ, dcid, scid, ev=0, plen=0, flags=0, version=VERSION):
    return HDR.pack(version, typ, flags, dcid, scid, ev, plen)


def data(dcid, scid, psn, msn, off, mlen, payload, plen=None, ev=1):
    return (hdr(DATA, dcid, scid, ev, len(payload) if plen is None else plen)
            + struct.pack("!IIIII", psn & PSN, msn & U32, off, mlen, 0)
            + payload)


def ack(dcid, scid, cum, sack=(0, 0, 0, 0), ev_echo=1, rwnd=1 << 20):
    return (hdr(ACK, dcid, scid) + struct.pack("!I", cum & PSN)
            + struct.pack("!4Q", *sack)
            + struct.pack("!HHIII", ev_echo, 0, rwnd, 0, 0))


def nack(dcid, scid, psn, reason=1, ev=1):
    return hdr(NACK, dcid, scid) + struct.pack("!IHBB", psn & PSN, ev, reason,
                                               0)


def syn(scid, sport, dport, mss=1400):
    return (hdr(SYN, 0, scid)
            + struct.pack("!HHIIHHII", sport, dport, random.getrandbits(24),
                          1 << 20, mss, 0, 0, 0))


def wide_psn(pkt):
    """PKT (a DATA, ACK, NACK or SYN of these builders) with bit 24 of its
    PSN field set: a PSN no 24-bit PSN space has."""
    off = HDR.size + (4 if pkt[1] in (SYN, SYNACK) else 0)
    return pkt[:off] + bytes([pkt[off] | 1]) + pkt[off + 1:]


def probe(ev, token):
    return hdr(PROBE, 0, 0, ev) + struct.pack("!II", token, 0)


def rst(dcid, scid):
    return hdr(RST, dcid, scid) + struct.pack("!I", 1)
