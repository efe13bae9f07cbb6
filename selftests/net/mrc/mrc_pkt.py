# SPDX-License-Identifier: GPL-2.0
"""MRC packets as bytes, for the tests that craft their own: the header
layouts of include/mrc_wire.h (Documentation/networking/mrc.rst, "Wire
format") for connection management and probes, and of include/
mrc10_wire.h (Documentation/networking/mrc-1.0-mapping.rst) for WRITEs,
SACKs and NACKs. No scapy here, so that a test that only needs to send a
few packets over a UDP socket starts fast."""

import random
import socket
import struct
import zlib

MRC_PORT = 4971
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


def syn(scid, sport, dport, mss=1400):
    return (hdr(SYN, 0, scid)
            + struct.pack("!HHIIHHII", sport, dport, random.getrandbits(24),
                          1 << 20, mss, 0, 0, 0))


def wide_psn(pkt):
    """PKT (a SYN of these builders) with bit 24 of its PSN field set: a
    PSN no 24-bit PSN space has."""
    off = HDR.size + 4
    return pkt[:off] + bytes([pkt[off] | 1]) + pkt[off + 1:]


def probe(ev, token):
    return hdr(PROBE, 0, 0, ev) + struct.pack("!II", token, 0)


def rst(dcid, scid):
    return hdr(RST, dcid, scid) + struct.pack("!I", 1)


# MRC 1.0 (mrc-1.0-mapping.rst): opcodes, BTH byte-8 bits, header sizes.
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM = 0xC6, 0xC7, 0xC8, 0xC9
WRITE_ONLY, WRITE_ONLY_IMM, SACK10, NACK10 = 0xCA, 0xCB, 0xDC, 0xDD
BTH_A, BTH_RTX, BTH_TS = 0x80000000, 0x20000000, 0x10000000
ICRC_LEN = 4
# A WRITE's headers as AF_MRC sends them (BTH, METH, TSETH, RETH; ImmDt
# on a message's last packet): what a trimming switch leaves is the first.
TRIMMED_LEN, DATA_HLEN_IMM = 36, 40
SACK_LEN = 48                           # BTH, SETH, CC_STATE
SETH_CACK = 24                          # cack_psn's offset in a SACK
NACK_TRIMMED, NACK_NO_PKT_BUFFER = 0x01, 0x07
XACK_FIN, XACK_DUP = 1, 2


def bth(op, qpn, word, pad=0):
    return struct.pack("!BBHB3sI", op, pad << 4, 0xFFFF, 0,
                       (qpn & 0xFFFFFF).to_bytes(3, "big"), word)


def write10(qpn, rkey, psn, msn, off, mlen, payload, ts=0, ack_req=False,
            retx=False, op=None):
    """A WRITE as AF_MRC sends it (the opcode from where the payload lies
    unless OP is given), with its pad and a zero ICRC for icrc10() to
    fill in."""
    last = off + len(payload) == mlen
    if op is None:
        op = ((WRITE_ONLY_IMM if last else WRITE_FIRST) if off == 0 else
              (WRITE_LAST_IMM if last else WRITE_MIDDLE))
    pad = -len(payload) % 4
    word = BTH_TS | (psn & PSN) | (BTH_A if ack_req else 0) | \
        (BTH_RTX if retx else 0)
    out = (bth(op, qpn, word, pad) + struct.pack("!HH", msn & 0xFFFF,
                                                 msn & 0xFFFF)
           + struct.pack("!HH", ts & 0xFFFF, 0x8001)
           + struct.pack("!QII", off, rkey, mlen))
    if op in (WRITE_LAST_IMM, WRITE_ONLY_IMM):
        out += struct.pack("!I", mlen)
    return out + payload + bytes(pad) + bytes(ICRC_LEN)


def sack10(qpn, sqpn, dqpn, cack, bitmap=0, sack_offset=1, ack_psn_offset=0,
           entropy=0, ts=0, rwnd=1 << 20, xflags=0, x=True, m=0):
    """A SACK: SETH, CC_STATE and (X) the AF_MRC extension; SQPN and
    DQPN are the QPNs of its sender and receiver, whose low 16 bits go in
    SPDCID and DPDCID."""
    flags = (m & 3) << 5 | (1 if x else 0)
    out = (bth(SACK10, qpn, cack & PSN)
           + struct.pack("!HhIHHIBBhQ", flags, ack_psn_offset,
                         entropy & U32, sqpn & 0xFFFF, dqpn & 0xFFFF,
                         cack & PSN, 0, 2, sack_offset, bitmap)
           + struct.pack("!HHI", ts & 0xFFFF, 0, 0))
    if x:
        out += struct.pack("!IHH", rwnd, 0, xflags)
    return out + bytes(ICRC_LEN)


def nack10(qpn, sqpn, dqpn, psn, reason=NACK_TRIMMED, entropy=0, ts=0):
    """A NACK: NETH."""
    return (bth(NACK10, qpn, psn & PSN)
            + struct.pack("!HBBIHHIBBH", 0, reason, 0, entropy & U32,
                          sqpn & 0xFFFF, dqpn & 0xFFFF, psn & PSN, 2 << 4, 0,
                          ts & 0xFFFF)
            + bytes(ICRC_LEN))


def icrc10(pkt, src, dst, sport, dport):
    """PKT (an MRC 1.0 packet from BTH on, its last 4 bytes the ICRC's
    place) with its ICRC, for IPv6 source SRC and final destination DST
    (text addresses) and those UDP ports: RoCEv2's CRC over the IPv6
    header as it would be at DST with no extension header, the UDP header
    and BTH with the fields that change on the way all ones
    (mrc-1.0-mapping.rst, ICRC)."""
    ulen = 8 + len(pkt)
    ip6 = (struct.pack("!IHBB", 0x6FFFFFFF, ulen, 17, 0xFF)
           + socket.inet_pton(socket.AF_INET6, src)
           + socket.inet_pton(socket.AF_INET6, dst))
    udp = struct.pack("!HHHH", sport, dport, ulen, 0xFFFF)
    body = bytearray(pkt[:-ICRC_LEN])
    body[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + ip6 + udp + bytes(body))
    return pkt[:-ICRC_LEN] + struct.pack("<I", crc)
