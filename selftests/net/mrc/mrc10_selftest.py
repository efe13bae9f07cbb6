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
"""
import ipaddress
import random
import sys

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.packet import Raw

from scapy.fields import BitField, SignedShortField, ThreeBytesField

import mrc10
from mrc10 import (BTH, METH, TSETH, RETH, ImmDt, AETH, SETH, CCState, NETH,
                   PETH, ERTH, EETH)

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
