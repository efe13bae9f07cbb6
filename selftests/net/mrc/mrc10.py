# SPDX-License-Identifier: GPL-2.0
"""MRC 1.0 packets in scapy, from the published header tables alone.

The conformance side of the MRC 1.0 tests: it shares no code with the
module or with the project's other Python tools (mrc_pkt.py, pcap_mrc.py,
trim_tool.py), so that the module and its tests cannot agree on a mistake
by construction. Every layout here is a table of
Documentation/networking/mrc-1.0-sources.rst (cited as "sources §N"),
which cites the public implementations it comes from; where those
disagree, the choice of Documentation/networking/mrc-1.0-mapping.rst.

    from mrc10 import bind, icrc_ok
    bind(4971)
    pkt = IPv6(raw)          # decodes BTH and the headers of its opcode
    icrc_ok(pkt)             # the RoCEv2 ICRC over the final destination

Every class checks nothing: decoding never fails on a value, so that a
test can say which field is wrong rather than see a Raw layer.
"""
import struct
import zlib

from scapy.fields import (BitField, ByteField, IntField, LongField,
                          ShortField, SignedShortField, StrFixedLenField,
                          X3BytesField, XByteField, XIntField, XLongField,
                          XShortField)
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.packet import Packet, Raw, bind_layers

# Opcodes (sources §3): the headers after BTH, in order. "TSETH?" is
# present when BTH.TS is set.
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST = 0xC6, 0xC7, 0xC8
WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = 0xC9, 0xCA, 0xCB
TRANSPORT_ACK = 0xD1
ENDPOINT_REQUEST, ENDPOINT_RESPONSE = 0xD8, 0xD9
RELIABILITY_SACK, RELIABILITY_NACK, RELIABILITY_PROBE = 0xDC, 0xDD, 0xDE

WRITES = (WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY,
          WRITE_ONLY_IMM)
OPCODES = WRITES + (TRANSPORT_ACK, ENDPOINT_REQUEST, ENDPOINT_RESPONSE,
                    RELIABILITY_SACK, RELIABILITY_NACK, RELIABILITY_PROBE)

# NACK reasons (sources §5).
NACK_REASONS = {0x01: "TRIMMED", 0x02: "TRIMMED_LASTHOP", 0x06: "NO_BITMAP",
                0x07: "NO_PKT_BUFFER", 0x0A: "NO_RESOURCE",
                0x0B: "PSN_OOR_WINDOW", 0x19: "UNEXP_EVENT"}

# Destination QP of endpoint operations (sources §3, §8).
ENDPOINT_QP = 2
ICRC_LEN = 4


class BTH(Packet):
    """Base Transport Header, 12 bytes (sources §2). Byte 8 as MC has it:
    A 0x80, R 0x40, RTX 0x20, TS 0x10 (mapping: BTH)."""
    name = "MRC BTH"
    fields_desc = [
        XByteField("opcode", 0),
        BitField("se", 0, 1),
        BitField("m", 0, 1),
        BitField("padcnt", 0, 2),
        BitField("tver", 0, 4),
        XShortField("pkey", 0xFFFF),
        XByteField("resv8a", 0),
        X3BytesField("dqpn", 0),
        BitField("a", 0, 1),
        BitField("r", 0, 1),
        BitField("rtx", 0, 1),
        BitField("ts", 0, 1),
        BitField("resv4", 0, 4),
        X3BytesField("psn", 0),
    ]

    def guess_payload_class(self, payload):
        if self.opcode in WRITES:
            return METH
        return {TRANSPORT_ACK: AETH, ENDPOINT_REQUEST: ERTH,
                ENDPOINT_RESPONSE: EETH, RELIABILITY_SACK: SETH,
                RELIABILITY_NACK: NETH,
                RELIABILITY_PROBE: PETH}.get(self.opcode, Raw)


def _bth(pkt):
    while pkt is not None and not isinstance(pkt, BTH):
        pkt = pkt.underlayer
    return pkt


class METH(Packet):
    """Message header, 4 bytes (sources §4.1)."""
    name = "MRC METH"
    fields_desc = [ShortField("rqmsn", 0), ShortField("msn", 0)]

    def guess_payload_class(self, payload):
        bth = _bth(self)
        return TSETH if bth is not None and bth.ts else RETH


class TSETH(Packet):
    """Timestamp header, 4 bytes (sources §4.2)."""
    name = "MRC TSETH"
    fields_desc = [ShortField("tx_ts", 0), BitField("tsr", 0, 1),
                   BitField("resv", 0, 11), BitField("ftype", 1, 4)]

    def guess_payload_class(self, payload):
        return RETH


class RETH(Packet):
    """RDMA extended transport header, 16 bytes, on every WRITE packet
    (sources §4.3)."""
    name = "MRC RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0),
                   IntField("dmalen", 0)]

    def guess_payload_class(self, payload):
        bth = _bth(self)
        if bth is not None and bth.opcode in (WRITE_LAST_IMM,
                                              WRITE_ONLY_IMM):
            return ImmDt
        return Raw


class ImmDt(Packet):
    """Immediate data, 4 bytes, on the _IMM opcodes (sources §4.4)."""
    name = "MRC ImmDt"
    fields_desc = [XIntField("imm", 0)]

    def guess_payload_class(self, payload):
        return Raw


class AETH(Packet):
    """Transport ACK, 4 bytes (sources §4.5)."""
    name = "MRC AETH"
    fields_desc = [XByteField("syndrome", 0x1F), X3BytesField("msn", 0)]

    def guess_payload_class(self, payload):
        return Raw


class SETH(Packet):
    """Reliability SACK, 28 bytes, then CC_STATE (sources §4.6)."""
    name = "MRC SETH"
    fields_desc = [
        BitField("res_type", 0, 4),
        BitField("res_nxt", 0, 5),
        BitField("m", 0, 2),
        BitField("resv3", 0, 3),
        BitField("pr", 0, 1),
        BitField("x", 0, 1),
        SignedShortField("ack_psn_offset", 0),
        XIntField("entropy", 0),
        XShortField("spdcid", 0),
        XShortField("dpdcid", 0),
        XByteField("resv8", 0),
        X3BytesField("cack_psn", 0),
        BitField("cc_type", 0, 4),
        BitField("cc_fl", 0, 4),
        ByteField("mpr", 0),
        SignedShortField("sack_offset", 1),
        XLongField("bitmap", 0),
    ]

    def guess_payload_class(self, payload):
        return CCState

    def received(self, psn):
        """Whether the bitmap says PSN arrived (sources §5)."""
        k = (psn - self.cack_psn - self.sack_offset) % (1 << 24)
        return k < 64 and bool(self.bitmap >> k & 1)


class CCState(Packet):
    """Congestion state after SETH, 8 bytes (sources §4.6)."""
    name = "MRC CC_STATE"
    fields_desc = [
        ShortField("tx_ts", 0),
        BitField("resv", 0, 1),
        BitField("ooo_count", 0, 15),
        BitField("r_c", 0, 1),
        BitField("rcv_cwnd_pen", 0, 7),
        X3BytesField("rcvd_bytes", 0),
    ]

    def guess_payload_class(self, payload):
        return Raw


class NETH(Packet):
    """Reliability NACK, 20 bytes (sources §4.7)."""
    name = "MRC NETH"
    fields_desc = [
        XShortField("res", 0),
        XByteField("reason", 0),
        XByteField("vendor", 0),
        XIntField("entropy", 0),
        XShortField("spdcid", 0),
        XShortField("dpdcid", 0),
        XByteField("resv8", 0),
        X3BytesField("nack_psn", 0),
        BitField("cc_type", 2, 4),
        BitField("cc_fl", 0, 4),
        XByteField("resv8b", 0),
        ShortField("tx_ts", 0),
    ]

    def guess_payload_class(self, payload):
        return Raw


class PETH(Packet):
    """Reliability probe, 16 bytes (sources §4.8)."""
    name = "MRC PETH"
    fields_desc = [
        XShortField("res", 0),
        XByteField("resv8", 0),
        XByteField("vendor", 0),
        ShortField("probe_id", 0),
        XShortField("resv16", 0),
        XShortField("spdcid", 0),
        XShortField("dpdcid", 0),
        ShortField("tx_ts", 0),
        BitField("tsr", 0, 1),
        BitField("resv11", 0, 11),
        BitField("ftype", 1, 4),
    ]

    def guess_payload_class(self, payload):
        return Raw


class ERTH(Packet):
    """Endpoint request, 16 bytes, to QP 2 (sources §4.9, MC's layout)."""
    name = "MRC ERTH"
    fields_desc = [
        BitField("res_type", 0, 4),
        BitField("res_nxt", 0, 5),
        BitField("resv5", 0, 5),
        BitField("op", 0, 2),
        XByteField("resv8", 0),
        XByteField("vendor", 0),
        XIntField("port_mask", 0),
        XIntField("resv32", 0),
        ShortField("tx_ts", 0),
        BitField("tsr", 0, 1),
        BitField("resv11", 0, 11),
        BitField("ftype", 1, 4),
    ]

    def guess_payload_class(self, payload):
        return Raw


class EETH(Packet):
    """Endpoint response, 36 bytes, from QP 2 (sources §4.10, MC's
    layout)."""
    name = "MRC EETH"
    fields_desc = [
        BitField("res_type", 0, 4),
        BitField("res_nxt", 0, 5),
        BitField("r1", 0, 1),
        BitField("op", 0, 2),
        BitField("r2", 0, 4),
        XShortField("resv16", 0),
        StrFixedLenField("resv", b"\0" * 24, 24),
        ShortField("tx_ts", 0),
        XShortField("resv16b", 0),
        XIntField("resv32", 0),
    ]

    def guess_payload_class(self, payload):
        return Raw


# Header bytes each opcode has after BTH, TSETH aside (sources §3, §4).
HDR_LEN = {WRITE_FIRST: 20, WRITE_MIDDLE: 20, WRITE_LAST: 20,
           WRITE_LAST_IMM: 24, WRITE_ONLY: 20, WRITE_ONLY_IMM: 24,
           TRANSPORT_ACK: 4, ENDPOINT_REQUEST: 16, ENDPOINT_RESPONSE: 36,
           RELIABILITY_SACK: 36, RELIABILITY_NACK: 20,
           RELIABILITY_PROBE: 16}


def bind(port):
    """Decode UDP to PORT as MRC 1.0."""
    bind_layers(UDP, BTH, dport=port)


def _final_dst(ip6):
    """The destination a packet has at its end: the SRH's last segment."""
    srh = ip6.getlayer(IPv6ExtHdrSegmentRouting)
    if srh is not None and srh.addresses:
        return srh.addresses[0]
    return ip6.dst


def icrc(ip6):
    """The ICRC a packet should carry (mapping: ICRC): RoCEv2's, over the
    IPv6 header it would have at its final destination with no extension
    header. Returns the 4 bytes as they go on the wire."""
    udp = bytes(ip6[UDP])[:ip6[UDP].len]
    hdr = bytes(IPv6(src=ip6.src, dst=_final_dst(ip6), nh=17, plen=len(udp),
                     hlim=255, tc=255, fl=0xFFFFF))[:40]
    body = bytearray(udp[:-ICRC_LEN])
    body[6:8] = b"\xff\xff"
    body[12] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + hdr + bytes(body)))


def icrc_ok(ip6):
    """Whether a received packet's last 4 bytes are its ICRC."""
    return bytes(ip6[UDP])[ip6[UDP].len - ICRC_LEN:ip6[UDP].len] == icrc(ip6)


def with_icrc(ip6):
    """An IPv6 packet built with scapy, with its ICRC appended."""
    raw = bytes(ip6 / Raw(b"\0" * ICRC_LEN))
    return IPv6(raw[:-ICRC_LEN] + icrc(IPv6(raw)))
