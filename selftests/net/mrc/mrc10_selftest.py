#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of mrc10.py, the independent MRC 1.0 decoder, on the host.

mrc10_selftest.py: every opcode's header stack, built with a value in
every field, takes the table's size and decodes back to the same values;
the SACK bitmap reads as sources §5 says; a packet's ICRC checks out,
with and without an SRH, and no longer does once a byte changes.

mrc10_selftest.py --vectors N: prints N random packets in icrc_test's
input format (tools/testing/icrc/icrc_test.c), their ICRCs computed here,
so that the module's icrc.c is checked against this decoder too.

mrc10_selftest.py --layout: reads what tools/testing/wire10_layout.c
prints (each header of include/mrc10_wire.h, every field set through the
module's names) and compares it with the same headers built here.

mrc10_selftest.py --mrc-pkt: the MRC 1.0 builders of mrc_pkt.py (the
tests' own, without scapy) make WRITEs, SACKs and NACKs this decoder reads
back, with ICRCs it checks.

mrc10_selftest.py --codec BINARY: holds the module's net/mrc/wire10.c,
built as BINARY (tools/testing/wire10_codec.c), to this decoder both ways:
what it writes decodes here to the fields it says it wrote, and what is
built here from the tables (whole, trimmed, without TSETH, short, of
another opcode, of another TVer, with an offset past 32 bits) it reads
to the same fields, or refuses for the reason expected.
"""
import ipaddress
import random
import subprocess
import sys

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.packet import Raw

from scapy.fields import BitField, SignedShortField, ThreeBytesField

import mrc10
from mrc10 import (BTH, METH, TSETH, RETH, ImmDt, AETH, SETH, CCState, NETH,
                   PETH, ERTH, EETH, XAck, XConn)

PORT = 4971
# A byte of the payload or headers, counted from the end: changed, the
# ICRC must fail.
ICRC_POS = 6
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def filled(cls, rng):
    """A layer of CLS with a random value in each field."""
    layer = cls()
    for f in cls.fields_desc:
        if f.name == "opcode":
            continue
        if isinstance(f.default, bytes):
            setattr(layer, f.name, bytes(rng.randrange(256)
                                         for _ in range(len(f.default))))
            continue
        if isinstance(f, BitField):
            width = f.size
        elif isinstance(f, ThreeBytesField):
            width = 24
        else:
            width = f.sz * 8
        signed = isinstance(f, SignedShortField)
        lo = -(1 << (width - 1)) if signed else 0
        hi = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
        setattr(layer, f.name, rng.randint(lo, hi))
    return layer


def stack(opcode, ts):
    if opcode in mrc10.WRITES:
        s = [METH] + ([TSETH] if ts else []) + [RETH]
        if opcode in (mrc10.WRITE_LAST_IMM, mrc10.WRITE_ONLY_IMM):
            s.append(ImmDt)
        return s
    return {mrc10.TRANSPORT_ACK: [AETH], mrc10.ENDPOINT_REQUEST: [ERTH],
            mrc10.ENDPOINT_RESPONSE: [EETH],
            mrc10.RELIABILITY_SACK: [SETH, CCState],
            mrc10.RELIABILITY_NACK: [NETH],
            mrc10.RELIABILITY_PROBE: [PETH]}[opcode]


def check_round_trips(rng):
    for opcode in mrc10.OPCODES:
        for ts in (0, 1):
            bth = filled(BTH, rng)
            bth.opcode, bth.ts = opcode, ts
            layers = [filled(c, rng) for c in stack(opcode, ts)]
            pkt = bth
            for layer in layers:
                pkt = pkt / layer
            pkt = pkt / Raw(b"\x01\x02\x03\x04")
            raw = bytes(pkt)
            want = 12 + mrc10.HDR_LEN[opcode] + (4 if ts and
                                                 opcode in mrc10.WRITES
                                                 else 0)
            check(len(raw) == want + 4, "0x%02x ts=%d: %d header bytes, not %d"
                  % (opcode, ts, len(raw) - 4, want))
            back = BTH(raw)
            for orig in [bth] + layers:
                got = back.getlayer(orig.__class__)
                check(got is not None, "0x%02x: no %s decoded"
                      % (opcode, orig.name))
                if got is None:
                    continue
                for f in orig.fields_desc:
                    check(getattr(got, f.name) == getattr(orig, f.name),
                          "0x%02x %s.%s: %r, not %r"
                          % (opcode, orig.name, f.name,
                             getattr(got, f.name), getattr(orig, f.name)))
            check(bytes(back.lastlayer()) == b"\x01\x02\x03\x04",
                  "0x%02x: the payload is not what followed" % opcode)


def check_extension():
    """The AF_MRC extension decodes where it is flagged and is there, and
    only there."""
    xc = XConn(sport=1, dport=2, sqpn=3, mss=1188)
    syn = BTH(bytes(BTH(opcode=mrc10.ENDPOINT_REQUEST, dqpn=2) /
                    ERTH(op=mrc10.EP_AFMRC, vendor=mrc10.X_SYN) / xc /
                    Raw(b"ICRC")))
    check(syn.haslayer(XConn) and syn[XConn].mss == 1188 and
          bytes(syn[XConn].payload) == b"ICRC", "xconn after ERTH op 2")
    probe = BTH(bytes(BTH(opcode=mrc10.ENDPOINT_REQUEST) /
                      ERTH(op=mrc10.EP_EV_PROBE) / xc))
    check(not probe.haslayer(XConn), "xconn after ERTH op 1")
    for x in (0, 1):
        sack = BTH(bytes(BTH(opcode=mrc10.RELIABILITY_SACK) / SETH(x=x) /
                         CCState() / XAck(rwnd=7, flags=mrc10.XACK_FIN) /
                         Raw(b"ICRC")))
        check(sack.haslayer(XAck) == bool(x), "xack with x=%d" % x)
        check(not x or sack[XAck].rwnd == 7, "xack.rwnd")
    short = BTH(bytes(BTH(opcode=mrc10.RELIABILITY_SACK) / SETH(x=1) /
                      CCState() / Raw(b"ICRC")))
    check(not short.haslayer(XAck), "xack decoded from 4 bytes")


def check_bitmap():
    s = SETH(cack_psn=0xFFFFFE, sack_offset=1, bitmap=(1 << 0) | (1 << 63))
    check(s.received(0xFFFFFF), "bit 0 is cack + 1")
    check(not s.received(0), "bit 1 is clear")
    check(s.received(62), "bit 63 is cack + 64, across the wrap")
    check(not s.received(63), "cack + 65 is past the bitmap")


def addr(rng):
    return str(ipaddress.IPv6Address(bytes([0x20, 1, 0xD, 0xB8]) +
                                     bytes(rng.randrange(256)
                                           for _ in range(12))))


def packet(rng):
    """A random MRC 1.0 packet with its ICRC, and its final destination."""
    src, final = addr(rng), addr(rng)
    opcode = rng.choice(mrc10.OPCODES)
    bth = filled(BTH, rng)
    bth.opcode, bth.ts = opcode, rng.randrange(2)
    pkt = UDP(sport=rng.randrange(1024, 65536), dport=PORT) / bth
    for c in stack(opcode, bth.ts):
        pkt = pkt / filled(c, rng)
    n = rng.choice([0, 1, 4, 333, 1400, 8000])
    pkt = pkt / Raw(bytes(rng.randrange(256) for _ in range(n)))
    if rng.randrange(2):
        segs = [final] + [addr(rng) for _ in range(rng.randrange(3))]
        left = rng.randrange(len(segs))
        ip = IPv6(src=src, dst=segs[left], tc=rng.randrange(256),
                  fl=rng.randrange(1 << 20), hlim=rng.randrange(256)) / \
            IPv6ExtHdrSegmentRouting(addresses=segs, segleft=left)
    else:
        ip = IPv6(src=src, dst=final, tc=rng.randrange(256),
                  fl=rng.randrange(1 << 20), hlim=rng.randrange(256))
    return mrc10.with_icrc(ip / pkt), final


def check_icrc(rng):
    for _ in range(50):
        p, _ = packet(rng)
        check(mrc10.icrc_ok(IPv6(bytes(p))), "a packet's own ICRC fails")
        # Any byte after UDP's but BTH's byte 4, which does not count.
        raw = bytearray(bytes(p))
        udp = len(raw) - len(bytes(p[UDP]))
        k = rng.choice([k for k in range(udp + 8, len(raw) - 4)
                        if k != udp + 12])
        raw[k] ^= 1 << rng.randrange(8)
        bad = IPv6(bytes(raw))
        if bad.haslayer(UDP) and bad[UDP].dport == PORT and \
                bad[UDP].len == len(bytes(bad[UDP])):
            check(not mrc10.icrc_ok(bad),
                  "the ICRC still checks with byte %d changed" % k)
    # What routers change on the way does not count.
    p, _ = packet(rng)
    q = p.copy()
    q.tc, q.fl, q.hlim = q.tc ^ 0xFF, q.fl ^ 1, 1
    check(mrc10.icrc_ok(IPv6(bytes(q))), "traffic class, label, hop limit")


def vectors(n, rng):
    for _ in range(n):
        p, final = packet(rng)
        udp = bytes(p[UDP])
        hl = 12 + mrc10.HDR_LEN[p[BTH].opcode] + \
            (4 if p[BTH].ts and p[BTH].opcode in mrc10.WRITES else 0)
        hdrs, rest = udp[8:8 + hl], udp[8 + hl:-4]
        print(p.src, final, p[UDP].sport, p[UDP].dport, p[UDP].len,
              hdrs.hex(), rest.hex() or "-", udp[-4:].hex())


# What wire10_layout (tools/testing) prints, built here from the tables.
LAYOUT = {
    "bth": lambda: BTH(opcode=mrc10.WRITE_LAST_IMM, se=1, m=1, padcnt=2,
                       tver=5, pkey=0x1234, resv8a=0xAB, dqpn=0x56789A, a=1,
                       rtx=1, ts=1, psn=0x123456),
    "meth": lambda: METH(rqmsn=0x1111, msn=0x2222),
    "tseth": lambda: TSETH(tx_ts=0x3333, tsr=1, ftype=1),
    "reth": lambda: RETH(va=0x0102030405060708, rkey=0x0A0B0C0D,
                         dmalen=150000),
    "seth": lambda: SETH(m=1, pr=1, x=1, ack_psn_offset=-3,
                         entropy=0xDEADBEEF, spdcid=0x1111, dpdcid=0x2222,
                         cack_psn=0xABCDEF, cc_type=2, cc_fl=1, mpr=8,
                         sack_offset=1, bitmap=0x8000000000000001),
    "cc": lambda: CCState(tx_ts=0x4444, ooo_count=5, r_c=1, rcv_cwnd_pen=0x11,
                          rcvd_bytes=0x123456),
    "neth": lambda: NETH(reason=0x02, vendor=0x77, entropy=0xCAFE,
                         spdcid=0x3333, dpdcid=0x4444, nack_psn=0x654321,
                         cc_type=2, cc_fl=0, tx_ts=0x5555),
    "peth": lambda: PETH(vendor=0x12, probe_id=0x7777, spdcid=1, dpdcid=2,
                         tx_ts=0x6666, tsr=1, ftype=1),
    "erth": lambda: ERTH(op=2, vendor=2, port_mask=0xF, tx_ts=0x1234,
                         ftype=1),
    "eeth": lambda: EETH(op=1, tx_ts=0x4321),
    "xconn": lambda: XConn(sport=0x1234, dport=0x5678, sqpn=0x9ABCDE,
                           dqpn=0x123456, isn=0xFEDCBA, value=0x11223344,
                           rwnd=0x55667788, mss=1188, flags=mrc10.XCONN_XACK,
                           tsval=0x99AABBCC, tsecr=0xDDEEFF00),
    "xack": lambda: XAck(rwnd=0x01020304, hold_us=0x0506,
                         flags=mrc10.XACK_FIN | mrc10.XACK_DUP),
}


def check_layout(lines):
    seen = set()
    for line in lines:
        name, hexed = line.split()
        want = bytes(LAYOUT[name]()).hex()
        check(hexed == want, "%s: the module's header gives %s, the tables %s"
              % (name, hexed, want))
        seen.add(name)
    check(seen == set(LAYOUT), "headers not compared: %s"
          % sorted(set(LAYOUT) - seen))


# The dissector's field for each layer field the check compares.
DISSECTED = {
    (BTH, "opcode"): "mrc10.opcode", (BTH, "psn"): "infiniband.bth.psn",
    (BTH, "dqpn"): "infiniband.bth.destqp", (METH, "msn"): "mrc10.meth.msn",
    (RETH, "dmalen"): "mrc10.reth.dma_len", (ImmDt, "imm"): "mrc10.imm",
    (SETH, "cack_psn"): "mrc10.seth.cack_psn",
    (SETH, "entropy"): "mrc10.seth.entropy",
    (CCState, "tx_ts"): "mrc10.cc.ts", (NETH, "reason"): "mrc10.neth.reason",
    (NETH, "nack_psn"): "mrc10.neth.nack_psn",
    (PETH, "probe_id"): "mrc10.peth.probe_id",
    (ERTH, "port_mask"): "mrc10.erth.port_mask",
    (EETH, "tx_ts"): "mrc10.eeth.ts", (AETH, "msn"): "mrc10.aeth.msn",
}


def check_dissector(lua):
    """Random packets of every opcode, and some with a byte changed, read
    by tshark with LUA: each field as built, each ICRC judged right."""
    import subprocess
    import tempfile
    from scapy.all import Ether, wrpcap

    rng = random.Random(5)
    pkts, want = [], []
    for i in range(120):
        p, _ = packet(rng)
        bad = i % 10 == 9
        if bad:
            raw = bytearray(bytes(p))
            raw[-ICRC_POS] ^= 0x40
            p = IPv6(bytes(raw))
        pkts.append(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / p)
        fields = {"mrc10.icrc.status": "0" if bad else "1"}
        for (cls, name), field in DISSECTED.items():
            if p.haslayer(cls) and not bad:
                fields[field] = int(getattr(p[cls], name))
        want.append(fields)
    names = sorted({k for w in want for k in w})
    with tempfile.NamedTemporaryFile(suffix=".pcap") as cap:
        wrpcap(cap.name, pkts)
        out = subprocess.run(
            ["tshark", "-n", "-r", cap.name, "-X", "lua_script:" + lua,
             "-T", "fields", "-E", "occurrence=f"] +
            [x for n in names for x in ("-e", n)],
            capture_output=True, text=True, check=False)
    lines = out.stdout.splitlines()
    check(len(lines) == len(pkts), "tshark read %d packets of %d: %s"
          % (len(lines), len(pkts), out.stderr.strip()[-200:]))
    for i, (line, w) in enumerate(zip(lines, want)):
        got = dict(zip(names, line.split("\t")))
        for k, v in w.items():
            g = got.get(k, "")
            try:
                ok = int(g, 0) == int(v) if g else False
            except ValueError:
                ok = False
            check(ok, "frame %d: %s is %r, not %s" % (i + 1, k, g, v))


# What wire10_codec prints for each kind, in its order.
DATA_FIELDS = ("qpn psn msn offset msg_len rkey plen ts ack_req retx last "
               "trimmed").split()
SACK_FIELDS = ("qpn psn cack_psn ack_psn_offset pr m entropy spdcid dpdcid "
               "mpr sack_offset bitmap ts ooo_count rcvd x rwnd hold_us "
               "xflags").split()
NACK_FIELDS = "qpn psn reason entropy spdcid dpdcid nack_psn ts".split()
# wire10.h's enum mrc10_bad.
BAD_SHORT, BAD_OPCODE, BAD_VERSION, BAD_FIELD = 1, 2, 3, 4


def line_of(kind, names, values):
    return kind + " " + " ".join("%s=%d" % (n, values[n]) for n in names)


def decode(kind, raw):
    """The fields of a whole packet, as the tables read them."""
    bth = BTH(raw)
    v = {"qpn": bth.dqpn, "psn": bth.psn}
    if kind == "data":
        meth = bth[METH]
        reth = bth[RETH]
        hlen = 12 + 4 + (4 if bth.ts else 0) + 16
        imm = bth.opcode in (mrc10.WRITE_LAST_IMM, mrc10.WRITE_ONLY_IMM)
        if imm:
            hlen += 4
        v.update(msn=meth.msn, offset=reth.va, msg_len=reth.dmalen,
                 rkey=reth.rkey,
                 plen=len(raw) - hlen - bth.padcnt - mrc10.ICRC_LEN,
                 ts=bth[TSETH].tx_ts if bth.ts else 0, ack_req=bth.a,
                 retx=bth.rtx,
                 last=int(bth.opcode in (mrc10.WRITE_LAST, mrc10.WRITE_LAST_IMM,
                                         mrc10.WRITE_ONLY,
                                         mrc10.WRITE_ONLY_IMM)),
                 trimmed=0)
        # What AF_MRC writes: the opcode from the offset and the end,
        # ImmDt the message's length, RQMSN the MSN, TSETH's TSR and ftype.
        first = reth.va == 0
        want = {(True, True): mrc10.WRITE_ONLY_IMM,
                (True, False): mrc10.WRITE_FIRST,
                (False, True): mrc10.WRITE_LAST_IMM,
                (False, False): mrc10.WRITE_MIDDLE}[(first, bool(v["last"]))]
        check(bth.opcode == want, "codec: data opcode %#x, not %#x"
              % (bth.opcode, want))
        check(not imm or bth[ImmDt].imm == reth.dmalen,
              "codec: ImmDt is not the message's length")
        check(meth.rqmsn == meth.msn, "codec: RQMSN is not the MSN")
        check(bth.ts and bth[TSETH].tsr == 1 and bth[TSETH].ftype == 1,
              "codec: TSETH not sent as the mapping says")
        check(bth.pkey == 0xFFFF and bth.tver == 0,
              "codec: P_Key or TVer not as the mapping says")
    elif kind == "sack":
        seth, cc = bth[SETH], bth[CCState]
        v.update(cack_psn=seth.cack_psn, ack_psn_offset=seth.ack_psn_offset,
                 pr=seth.pr, m=seth.m, entropy=seth.entropy,
                 spdcid=seth.spdcid, dpdcid=seth.dpdcid, mpr=seth.mpr,
                 sack_offset=seth.sack_offset, bitmap=seth.bitmap,
                 ts=cc.tx_ts, ooo_count=cc.ooo_count, rcvd=cc.rcvd_bytes,
                 x=seth.x, rwnd=0, hold_us=0, xflags=0)
        if seth.x:
            rest = bytes(cc.payload)
            check(len(rest) == 8 + mrc10.ICRC_LEN,
                  "codec: the extension is not 8 bytes")
            v.update(rwnd=int.from_bytes(rest[0:4], "big"),
                     hold_us=int.from_bytes(rest[4:6], "big"),
                     xflags=int.from_bytes(rest[6:8], "big"))
    else:
        neth = bth[NETH]
        v.update(reason=neth.reason, entropy=neth.entropy,
                 spdcid=neth.spdcid, dpdcid=neth.dpdcid,
                 nack_psn=neth.nack_psn, ts=neth.tx_ts)
    return v


FIELDS = {"data": DATA_FIELDS, "sack": SACK_FIELDS, "nack": NACK_FIELDS}


def codec_written(binary, n):
    """What the module writes decodes here to what it says it wrote."""
    out = subprocess.run([binary, "write", str(n), "12345"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    check(len(out) == 3 * n, "codec: write printed %d lines" % len(out))
    for line in out:
        kind, rest = line.split(" ", 1)
        fields, raw = rest.rsplit(" ", 1)
        got = line_of(kind, FIELDS[kind], decode(kind, bytes.fromhex(raw)))
        if kind == "nack":
            check(BTH(bytes.fromhex(raw))[NETH].cc_type == 2,
                  "codec: NACK cc_type not 2")
        check(got == kind + " " + fields,
              "codec: written %s decodes to\n  %s, not\n  %s"
              % (kind, got, line))


def built_data(rng):
    """A WRITE packet from the tables, and what the module must read."""
    mlen = rng.randrange(5000)
    off = 0 if rng.random() < 0.3 else rng.randrange(mlen + 1)
    plen = rng.randrange(mlen - off + 1)
    last = off + plen == mlen
    tsflag = rng.random() < 0.8
    imm = last and rng.random() < 0.7
    op = {(True, True): mrc10.WRITE_ONLY, (True, False): mrc10.WRITE_FIRST,
          (False, True): mrc10.WRITE_LAST,
          (False, False): mrc10.WRITE_MIDDLE}[(off == 0, last)]
    if imm:
        op += 1
    pad = -plen % 4
    bth = BTH(opcode=op, padcnt=pad, dqpn=rng.randrange(1 << 24),
              psn=rng.randrange(1 << 24), a=rng.randrange(2),
              rtx=rng.randrange(2), ts=int(tsflag), pkey=rng.randrange(1 << 16))
    pkt = bth / METH(rqmsn=rng.randrange(1 << 16), msn=rng.randrange(1 << 16))
    if tsflag:
        pkt = pkt / TSETH(tx_ts=rng.randrange(1 << 16), tsr=1)
    rkey = rng.randrange(1 << 32)
    pkt = pkt / RETH(va=off, rkey=rkey, dmalen=mlen)
    if imm:
        pkt = pkt / ImmDt(imm=rng.randrange(1 << 32))
    raw = bytes(pkt) + bytes(rng.randrange(256) for _ in range(plen)) + \
        bytes(pad) + bytes(mrc10.ICRC_LEN)
    want = {"qpn": bth.dqpn, "psn": bth.psn, "msn": pkt[METH].msn,
            "offset": off, "msg_len": mlen, "rkey": rkey, "plen": plen,
            "ts": pkt[TSETH].tx_ts if tsflag else 0, "ack_req": bth.a,
            "retx": bth.rtx, "last": int(last), "trimmed": 0}
    return raw, want


def codec_read(binary, n, rng):
    """What is built here the module reads to the same fields, or refuses
    for the reason expected."""
    cases = []
    for _ in range(n):
        raw, want = built_data(rng)
        cases.append(("data", raw, line_of("data", DATA_FIELDS, want)))
        # Trimmed: the headers up to RETH, nothing after.
        hl = 12 + 4 + (4 if BTH(raw).ts else 0) + 16
        want = dict(want, plen=0, trimmed=1)
        cases.append(("data", raw[:hl], line_of("data", DATA_FIELDS, want)))
        cases.append(("data", raw[:hl - 1 - rng.randrange(hl - 1)],
                      "data bad=%d" % BAD_SHORT))
        # Cut by a switch to its trim size (the trim DSCP): trimmed
        # whatever is left of the payload, short of RETH malformed.
        cut = hl + rng.randrange(len(raw) - hl + 1)
        cases.append(("data_trim", raw[:cut],
                      line_of("data_trim", DATA_FIELDS, want)))
        cases.append(("data_trim", raw[:hl - 1 - rng.randrange(hl - 1)],
                      "data_trim bad=%d" % BAD_SHORT))
        cases.append(("data", bytes([rng.choice([0xC5, 0xCC, 0xDC, 0x04])]) +
                      raw[1:], "data bad=%d" % BAD_OPCODE))
        cases.append(("data", raw[:1] + bytes([raw[1] | 1 + rng.randrange(15)])
                      + raw[2:], "data bad=%d" % BAD_VERSION))
        # The opcode names another place in the message: each of First,
        # Middle, Last and Only names one (the _IMM forms are Last, Only).
        ops = ([mrc10.WRITE_LAST_IMM, mrc10.WRITE_ONLY_IMM]
               if raw[0] in (mrc10.WRITE_LAST_IMM, mrc10.WRITE_ONLY_IMM) else
               [mrc10.WRITE_FIRST, mrc10.WRITE_MIDDLE, mrc10.WRITE_LAST,
                mrc10.WRITE_ONLY])
        ops.remove(raw[0])
        cases.append(("data", bytes([rng.choice(ops)]) + raw[1:],
                      "data bad=%d" % BAD_FIELD))
        far = bytes(BTH(opcode=mrc10.WRITE_MIDDLE, ts=1) / METH() /
                    TSETH() / RETH(va=(1 << 32) + rng.randrange(1 << 32))) + \
            bytes(8)
        cases.append(("data", far, "data bad=%d" % BAD_FIELD))
        for kind, cls, names in (("sack", SETH, SACK_FIELDS),
                                 ("nack", NETH, NACK_FIELDS)):
            op = mrc10.RELIABILITY_SACK if kind == "sack" else \
                mrc10.RELIABILITY_NACK
            hdr = filled(cls, rng)
            pkt = BTH(opcode=op, dqpn=rng.randrange(1 << 24),
                      psn=rng.randrange(1 << 24)) / hdr
            if kind == "sack":
                pkt = pkt / filled(CCState, rng)
                if hdr.x:
                    pkt = pkt / Raw(bytes(rng.randrange(256)
                                          for _ in range(8)))
            raw = bytes(pkt) + bytes(mrc10.ICRC_LEN)
            cases.append((kind, raw,
                          line_of(kind, names, decode(kind, raw))))
            cases.append((kind, raw[:-1], "%s bad=%d" % (kind, BAD_SHORT)))
    stdin = "".join("%s %s\n" % (k, r.hex()) for k, r, _ in cases)
    out = subprocess.run([binary, "read"], input=stdin, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    check(len(out) == len(cases), "codec: read printed %d lines for %d"
          % (len(out), len(cases)))
    for (kind, raw, want), got in zip(cases, out):
        check(got == want, "codec: %s %s read as\n  %s, not\n  %s"
              % (kind, raw.hex(), got, want))
    return len(cases)


def check_mrc_pkt(rng, n):
    """mrc_pkt.py's MRC 1.0 builders, against this decoder."""
    import mrc_pkt as P
    for i in range(n):
        src = "2001:db8::%x" % rng.randrange(1, 1 << 16)
        dst = "2001:db8:1::%x" % rng.randrange(1, 1 << 16)
        sport = rng.randrange(1024, 65536)
        mlen = rng.randrange(1, 5000)
        off = rng.choice([0, rng.randrange(mlen)])
        plen = rng.randrange(mlen - off + 1)
        psn, qpn, rkey = (rng.randrange(1 << 24) for _ in range(3))
        kind = i % 3
        if kind == 0:
            pkt = P.write10(qpn, rkey, psn, rng.randrange(1 << 20), off,
                            mlen, bytes(plen), ts=rng.randrange(1 << 16),
                            ack_req=True)
        elif kind == 1:
            bitmap, ent = rng.getrandbits(64), rng.getrandbits(32)
            pkt = P.sack10(qpn, rkey, 7, psn, bitmap=bitmap, sack_offset=65,
                           entropy=ent, xflags=3)
        else:
            ent = rng.getrandbits(32)
            pkt = P.nack10(qpn, rkey, 7, psn, reason=7, entropy=ent, ts=9)
        pkt = P.icrc10(pkt, src, dst, sport, PORT)
        ip = IPv6(bytes(IPv6(src=src, dst=dst) / UDP(sport=sport, dport=PORT)
                        / Raw(pkt)))
        check(mrc10.icrc_ok(ip), "mrc_pkt: kind %d: a bad ICRC" % kind)
        bth = ip[BTH]
        check(bth.dqpn == qpn and bth.psn == psn, "mrc_pkt: kind %d: BTH" % kind)
        if kind == 0:
            reth = ip[RETH]
            check(bth.ts == 1 and bth.a == 1 and reth.va == off and
                  reth.dmalen == mlen and reth.rkey == rkey,
                  "mrc_pkt: WRITE fields")
            check(off + plen != mlen or ip[ImmDt].imm == mlen,
                  "mrc_pkt: ImmDt")
            # What mrc_pkt.py says the headers' lengths are.
            hlen = len(pkt) - plen - (-plen % 4) - P.ICRC_LEN
            reth_end = len(bytes(bth)) - len(bytes(reth.payload))
            check(hlen == (P.DATA_HLEN_IMM if off + plen == mlen else
                           P.TRIMMED_LEN) and reth_end == P.TRIMMED_LEN,
                  "mrc_pkt: WRITE header lengths %d %d" % (hlen, reth_end))
        elif kind == 1:
            seth = ip[SETH]
            check(seth.x == 1 and seth.sack_offset == 65 and
                  seth.bitmap == bitmap and seth.entropy == ent and
                  seth.cack_psn == psn, "mrc_pkt: SACK fields")
            check(int.from_bytes(pkt[P.SETH_CACK:P.SETH_CACK + 4], "big")
                  == psn and len(bytes(ip[BTH])) - P.SACK_LEN ==
                  len(bytes(seth[CCState].payload)),
                  "mrc_pkt: SACK offsets")
        else:
            neth = ip[NETH]
            check(neth.reason == 7 and neth.cc_type == 2 and
                  neth.nack_psn == psn and neth.entropy == ent,
                  "mrc_pkt: NACK fields")


def main():
    mrc10.bind(PORT)
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    if len(sys.argv) > 2 and sys.argv[1] == "--vectors":
        vectors(int(sys.argv[2]), rng)
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--dissector":
        check_dissector(sys.argv[2])
        for f in failures[:20]:
            print("mrc10_selftest: " + f)
        if failures:
            sys.exit(1)
        print("mrc10_selftest: %s decodes every opcode's fields and judges "
              "every ICRC" % sys.argv[2])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--mrc-pkt":
        check_mrc_pkt(rng, 300)
        for f in failures[:20]:
            print("mrc10_selftest: " + f)
        if failures:
            sys.exit(1)
        print("mrc10_selftest: mrc_pkt.py builds 300 MRC 1.0 packets the "
              "tables decode, every ICRC right")
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--codec":
        codec_written(sys.argv[2], 200)
        n = codec_read(sys.argv[2], 200, rng)
        for f in failures[:20]:
            print("mrc10_selftest: " + f)
        if failures:
            sys.exit(1)
        print("mrc10_selftest: wire10.c writes 600 packets the tables "
              "decode, and reads %d built from them" % n)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--layout":
        check_layout(sys.stdin)
        for f in failures:
            print("mrc10_selftest: " + f)
        if failures:
            sys.exit(1)
        print("mrc10_selftest: include/mrc10_wire.h matches the tables, "
              "%d headers" % len(LAYOUT))
        return
    check_round_trips(rng)
    check_extension()
    check_bitmap()
    check_icrc(rng)
    for f in failures:
        print("mrc10_selftest: " + f)
    if failures:
        sys.exit(1)
    print("mrc10_selftest: %d opcodes round-trip, bitmap and ICRC checked"
          % len(mrc10.OPCODES))


if __name__ == "__main__":
    main()
