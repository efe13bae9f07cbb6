#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helper of hostile.sh: hostile MRC packets from an on-path spine.

hostile.py --phase active|idle --results FILE --template FILE
           --h1-ns NS --h2-ns NS --h2-addr ADDR
           --listen-port PORT --trim-dscp DSCP --probe-rate N --messages N
           [--timeout S] [--ready FILE]

Runs in the namespace of the spine between host 1 (the sender of a live
transfer) and host 2 (its receiver), whose links are the interfaces h1
and h2. It learns the connection from the traffic it forwards (addresses,
MACs, QPNs, PSNs: an on-path attacker sees all of them), then
for each case of the phase sends its packets straight to the victim host
(scapy, at layer 2, as the spine would forward them, with the source
address of the victim's peer, and a right ICRC on every MRC 1.0 packet unless the
case is about the ICRC) and waits until the victim's counters
(/proc/net/mrc_stat, or /proc/net/snmp6 for what IPv6 drops first) have
risen as the case expects. One JSON line per case goes to FILE: its
name, whether it held, and the counter deltas. The active phase saves
what it learnt in the --template FILE for the idle phase.

Phase active runs while data flows: cases that need no PSN. It creates
the --ready FILE once it captures, and the transfer starts only then.
Phase idle
runs once the sender has sent everything and had it acknowledged (and
holds the connection open), so that the receiver's next PSN is known
exactly: cases about windows and unsent PSNs.
"""

import argparse
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

import trim_tool
import mrc_pkt as P
from mrc_pkt import (ACK, DATA, HDR, HDR_LEN, MRC_PORT, MSG_MAX, NACK,
                     SACK10, VERSION, WND, hdr, probe, rst, syn, wide_psn)
from scapy.all import (Ether, IPv6, IPv6ExtHdrSegmentRouting, Raw, UDP,
                       conf, sendp, sniff)

conf.verb = 0


WRITES = range(P.WRITE_FIRST, P.WRITE_ONLY_IMM + 1)
ICRC_CHECK = "/sys/module/mrc/parameters/icrc_check"


def mrc_of(pkt):
    """(kind, UDP payload) of an MRC packet, or None: the kind is the
    opcode of an MRC 1.0 packet (BTH first), the type of one in the
    AF_MRC header (connection management and path probes)."""
    if UDP not in pkt or pkt[UDP].dport != MRC_PORT:
        return None
    raw = bytes(pkt[UDP].payload)
    if raw and raw[0] >= P.WRITE_FIRST:
        return raw[0], raw
    if len(raw) < HDR.size or raw[0] != VERSION:
        return None
    return raw[1], raw


def write_fields(raw):
    """(QPN, PSN, MSN, R_Key) of a WRITE: the receiver's QPN, the
    sender's in R_Key."""
    word = struct.unpack_from("!I", raw, 8)[0]
    reth = 16 + (4 if word & P.BTH_TS else 0)
    return (int.from_bytes(raw[5:8], "big"), word & P.PSN,
            struct.unpack_from("!H", raw, 14)[0],
            struct.unpack_from("!I", raw, reth + 8)[0])


def counters(ns):
    """The namespace's MRC counters and IPv6 SNMP counters, by name."""
    out = {}
    for path in ("/proc/net/mrc_stat", "/proc/net/snmp6"):
        text = subprocess.run(["ip", "netns", "exec", ns, "cat", path],
                              check=True, capture_output=True,
                              text=True).stdout
        for line in text.splitlines():
            f = line.split()
            if len(f) == 2 and f[1].isdigit():
                out[f[0]] = int(f[1])
    return out


def csum(data):
    """The UDP checksum field for data (pseudo-header included)."""
    return ~trim_tool.csum(data) & 0xffff or 0xffff


class Link:
    """A template frame toward one host, learnt from forwarded traffic."""

    def __init__(self, frame):
        self.frame = frame

    def make(self, payload, tclass=None, srh=None, icrc=True):
        """The template with this MRC payload (and SRH, traffic class).

        An MRC 1.0 payload (a BTH first) gets its ICRC in its last 4
        bytes, unless not ICRC. The ICRC and the UDP checksum are computed
        here, over the IPv6 destination as it stands: the kernel checks
        them so once segments_left is 0, whatever the SRH's last entry
        says (scapy would use that entry)."""
        f = self.frame.copy()
        ip = f[IPv6]
        if icrc and len(payload) >= 16 and payload[0] >= P.WRITE_FIRST:
            payload = P.icrc10(payload, ip.src, ip.dst, f[UDP].sport,
                               f[UDP].dport)
        udp = f[UDP].copy()
        udp.remove_payload()
        ip.remove_payload()
        if srh is None and IPv6ExtHdrSegmentRouting in self.frame:
            srh = self.frame[IPv6ExtHdrSegmentRouting].copy()
            srh.remove_payload()
        if srh is not None:
            srh.nh = 17
            ip.nh = 43
            ip.add_payload(srh / udp / Raw(payload))
        else:
            ip.nh = 17
            ip.add_payload(udp / Raw(payload))
        del ip.plen
        if tclass is not None:
            ip.tc = tclass
        u = f[UDP]
        u.len = 8 + len(payload)
        u.chksum = 0
        pseudo = (socket_addr(ip.src) + socket_addr(ip.dst)
                  + struct.pack("!IxxxB", u.len, 17))
        u.chksum = csum(pseudo + bytes(u))
        return f


def socket_addr(a):
    return socket.inet_pton(socket.AF_INET6, a)


class Attack:
    def __init__(self, a):
        self.a = a
        self.results = open(a.results, "a")
        self.ns = {"h1": a.h1_ns, "h2": a.h2_ns}

    def learn(self, iface, dst, kinds, started=None):
        """The next frame of one of these kinds (mrc_of()) going out of
        iface to dst; started is called once the capture is open."""
        got = sniff(iface=iface, count=1, timeout=self.a.timeout,
                    started_callback=started,
                    lfilter=lambda p: IPv6 in p and p[IPv6].dst == dst and
                    (mrc_of(p) or (None,))[0] in kinds)
        if not got:
            raise SystemExit("hostile.py: no packet of kinds %s to %s seen "
                             "on %s" % (list(kinds), dst, iface))
        return got[0]

    def learn_data(self):
        # The transfer starts when --ready's file exists, so that no
        # interpreter, however slow to start, misses it.
        f = self.learn("h2", self.a.h2_addr, WRITES,
                       lambda: open(self.a.ready, "w").close())
        qpn, psn, msn, rkey = write_fields(mrc_of(f)[1])
        self.to_h2 = Link(f)
        self.h2_cid, self.h1_cid, self.psn, self.msn = qpn, rkey, psn, msn

    def data(self, psn, msn, off, mlen, payload, qpn=None, rkey=None,
             op=None):
        """A WRITE to host 2 (by default of the connection, from host 1),
        ICRC not yet filled in."""
        return P.write10(self.h2_cid if qpn is None else qpn,
                         self.h1_cid if rkey is None else rkey, psn, msn, off,
                         mlen, payload, op=op)

    def sack(self, cack, bitmap=0, qpn=None, sqpn=None):
        """A SACK to host 1 (by default of the connection, from host 2)."""
        qpn = self.h1_cid if qpn is None else qpn
        return P.sack10(qpn, self.h2_cid if sqpn is None else sqpn, qpn,
                        cack, bitmap)

    def case(self, name, host, frames, want, check=None):
        """Send frames to host (h1 or h2); want: {counter: least rise}."""
        before = counters(self.ns[host])
        sendp(frames, iface=host)
        deadline = time.time() + self.a.timeout
        while True:
            after = counters(self.ns[host])
            delta = {k: after.get(k, 0) - before.get(k, 0)
                     for k in set(after) | set(before)
                     if after.get(k, 0) != before.get(k, 0)}
            ok = all(delta.get(k, 0) >= n for k, n in want.items())
            if ok and check:
                ok = check(delta)
            if ok or time.time() > deadline:
                break
            time.sleep(0.2)
        self.results.write(json.dumps({"case": name, "ok": ok, "sent":
                                       len(frames), "want": want,
                                       "delta": delta}) + "\n")
        self.results.flush()

    def active(self):
        self.learn_data()
        h2, h1 = self.h2_cid, self.h1_cid
        t = self.to_h2
        # Every length short of each kind's headers (and, in MRC 1.0, of
        # its ICRC), but a WRITE's headers up to RETH: that is a trimmed
        # packet. The AF_MRC header's DATA, ACK and NACK are no more.
        frames = [t.make(b"")]
        full = self.data(self.psn, self.msn, 0, 0, b"")
        frames += [t.make(full[:i], icrc=False) for i in range(1, len(full))
                   if i != P.TRIMMED_LEN]
        for pkt in (self.sack(self.psn), P.nack10(h1, h2, h1, self.psn)):
            frames += [t.make(pkt[:i], icrc=False)
                       for i in range(1, len(pkt))]
        for typ, n in HDR_LEN.items():
            if typ in (DATA, ACK, NACK):
                continue
            head = hdr(typ, h2, h1) + bytes(n - HDR.size)
            start = 1 if typ == P.SYN else HDR.size
            frames += [t.make(head[:i]) for i in range(start, n)]
        self.case("truncated headers, every length from 0 to the full header",
                  "h2", frames, {"DropShort": len(frames)})
        self.case("zero-length UDP", "h2", [t.make(b"")], {"DropShort": 1})
        # The tunnel socket verifies the UDP checksum itself (the stack
        # leaves it to a plain socket's reader): a wrong one, never 0
        # (which IPv6 refuses before any socket sees it), is counted.
        frames = []
        for i in range(5):
            f = t.make(self.data(self.psn, self.msn, 0, 100, bytes(100)))
            f[UDP].chksum = (f[UDP].chksum + 1 + i) % 0xffff or 1
            frames.append(f)
        self.case("bad UDP checksums", "h2", frames, {"DropCsum": 5})
        # A zero UDP checksum (RFC 6936) is MRC 1.0's to send: the ICRC
        # covers the same bytes. These WRITEs pass both checks (and are
        # duplicates); AF_MRC's own header, which has no ICRC, is refused.
        frames = []
        for i in range(3):
            f = t.make(self.data(self.psn, self.msn, 0, 100, bytes(100)))
            f[UDP].chksum = 0
            frames.append(f)
        self.case("zero UDP checksums on WRITEs: taken", "h2", frames,
                  {"InPkts": 3},
                  lambda d: not d.get("DropCsum") and
                  not d.get("InIcrcErrors"))
        frames = []
        for i in range(4):
            f = t.make(hdr(P.SYN, h2, h1) + bytes(36))
            f[UDP].chksum = 0
            frames.append(f)
        self.case("zero UDP checksums on AF_MRC's own header: refused",
                  "h2", frames, {"DropCsum": 4})
        # The ICRC covers the invariant IPv6 and UDP fields and the
        # whole MRC packet: a changed byte anywhere in them, with the UDP
        # checksum made right again, as a device that rewrote it would.
        frames = []
        for i in range(5):
            good = t.make(self.data(self.psn, self.msn, 0, 100, bytes(100)))
            pkt = bytearray(bytes(good[UDP].payload))
            pkt[random.randrange(P.DATA_HLEN_IMM, len(pkt))] ^= \
                1 << random.randrange(8)
            frames.append(t.make(bytes(pkt), icrc=False))
        self.case("bad ICRCs", "h2", frames, {"InIcrcErrors": 5})
        # With icrc_check off the same are taken (duplicates: the UDP
        # checksum is right), and a zero UDP checksum covers nothing.
        zero = []
        for i in range(3):
            f = t.make(self.data(self.psn, self.msn, 0, 100, bytes(100)))
            f[UDP].chksum = 0
            zero.append(f)
        with open(ICRC_CHECK, "w") as p:
            p.write("0")
        try:
            self.case("icrc_check off: bad ICRCs taken, zero UDP checksums "
                      "refused", "h2", frames + zero,
                      {"InPkts": 8, "DropCsum": 3},
                      lambda d: not d.get("InIcrcErrors"))
        finally:
            with open(ICRC_CHECK, "w") as p:
                p.write("1")
        # Version 1 had PSNs of 32 bits. BTH's TVer is MRC 1.0's.
        frames = [t.make(hdr(P.SYN, h2, h1, version=v) + bytes(36))
                  for v in (0, 1, 3)]
        d = self.data(self.psn, self.msn, 0, 100, bytes(100))
        frames += [t.make(d[:1] + bytes([d[1] | v]) + d[2:])
                   for v in (1, 8, 15)]
        self.case("unknown versions", "h2", frames, {"DropVersion": 6})
        frames = [t.make(hdr(typ, h2, h1) + bytes(64))
                  for typ in (0, DATA, ACK, NACK, 10, 255)]
        frames += [t.make(bytes([op]) + full[1:] + bytes(64))
                   for op in (0xCC, 0xD1, 0xE0, 0xFF)]
        self.case("unknown types and opcodes", "h2", frames,
                  {"DropType": len(frames)})
        n = 300
        frames = [t.make(self.data(self.psn, 0, 0, 100, bytes(100),
                                   qpn=random.randrange(1, 1 << 24)))
                  for _ in range(n)]
        frames = [f for f in frames if write_fields(bytes(f[UDP].payload))[0]
                  != h2]
        n = len(frames)
        self.case("unknown QPNs (RSTs rate-limited)", "h2", frames,
                  {"DropNoConn": n, "RstRateLimited": 1},
                  lambda d: d.get("OutRsts", 0) + d.get("RstRateLimited", 0)
                  == d.get("DropNoConn", 0))
        frames = [t.make(rst(random.getrandbits(32) | 1, h1))
                  for _ in range(100)]
        frames += [t.make(rst(h2, random.getrandbits(32) | 1))
                   for _ in range(100)]
        self.case("resets with guessed ids", "h2", frames,
                  {"DropNoConn": 100, "DropBadCid": 100})
        # A message of tiny packets would make a receiver hold many times
        # its size: below the floor (MRC_MSS_MIN, 1036 bytes), no connection.
        n = 20
        frames = [t.make(syn(random.randrange(3, 1 << 24),
                             random.randrange(1024, 65536),
                             self.a.listen_port, mss))
                  for mss in (0, 64, 536, 1035) for _ in range(n // 4)]
        self.case("SYNs with an MSS below the floor (no connection)", "h2",
                  frames, {"DropSmallMss": n},
                  lambda d: not d.get("OutSyns", 0) and
                  not d.get("PassiveOpens", 0))
        frames = [t.make(syn(random.randrange(3, 1 << 24),
                             random.randrange(1024, 65536),
                             self.a.listen_port))
                  for _ in range(500)]
        # Children die as the spoofed source's RSTs (rate-limited) come
        # back, freeing room: most of the flood, not all, overflows.
        self.case("a handshake flood on a listener with backlog 16", "h2",
                  frames, {"DropListenOverflow": 250})
        n, rate, t0 = 200, self.a.probe_rate, time.time()
        # The replies go to the spoofed source (the peer), which drops
        # them: they answer nothing it sent.
        self.case("a flood of PROBEs (replies rate-limited)", "h2",
                  [t.make(probe(1, random.getrandbits(32) | 1))
                   for _ in range(n)], {"InProbes": n, "DropProbeRate": 1},
                  lambda d: d.get("OutProbeReplies", 0)
                  + d.get("DropProbeRate", 0) == d.get("InProbes", 0) and
                  d.get("OutProbeReplies", 0) <= rate * (time.time() - t0 + 2))
        pl = self.data(self.psn, self.msn, 0, 0, b"")
        for name, srh, want in (
            ("an SRH whose last entry is not this host",
             IPv6ExtHdrSegmentRouting(addresses=["2001:db8:dead::1"],
                                      segleft=0), {"DropBadSrh": 10}),
            ("an SRH whose last entry index is beyond its list",
             IPv6ExtHdrSegmentRouting(addresses=[self.a.h2_addr],
                                      segleft=0, lastentry=3),
             {"DropBadSrh": 10}),
            ("an SRH with segments_left beyond its list (IPv6 drops it)",
             IPv6ExtHdrSegmentRouting(addresses=[self.a.h2_addr],
                                      segleft=5), {"Ip6InHdrErrors": 10}),
            ("an SRH whose length runs past the packet (IPv6 drops it)",
             IPv6ExtHdrSegmentRouting(addresses=[self.a.h2_addr],
                                      segleft=0, len=255),
             {"Ip6InHdrErrors": 10})):
            self.case(name, "h2", [t.make(pl, srh=srh.copy())
                                   for _ in range(10)], want)

    def idle(self):
        self.learn_data_idle()
        nxt, t = self.nxt, self.to_h2
        frames = [t.make(self.data(nxt + WND + 1000 + i, self.msn, 0, 100,
                                   bytes(100))) for i in range(5)]
        self.case("PSNs beyond the window", "h2", frames,
                  {"DropPsnWindow": 5, "OutNacks": 5})
        frames = [t.make(wide_psn(syn(self.h1_cid, 40000 + i, 1)))
                  for i in range(5)]
        self.case("SYNs whose PSN does not fit 24 bits", "h2", frames,
                  {"DropPsnWindow": 5})
        # Far behind is a duplicate: a retransmitted packet's first copy
        # may arrive that late.
        frames = [t.make(self.data(nxt - WND - 1000 - i, self.msn, 0, 100,
                                   bytes(100))) for i in range(5)]
        self.case("PSNs long before the cumulative point", "h2", frames,
                  {"DropDup": 5})
        p, m = nxt + 3, self.msn
        bad = [self.data(p, m, 0, MSG_MAX + 1, bytes(100)),
               self.data(p, m, 200, 100, bytes(100)),
               self.data(p, m, 50, 100, bytes(100)),
               # The opcodes of a message's middle and of a whole one.
               self.data(p, m, 0, 100, bytes(100), op=P.WRITE_MIDDLE),
               self.data(p, m, 0, 200, bytes(100), op=P.WRITE_ONLY),
               self.data(p, m + 1000, 0, 100, bytes(100)),
               # Short of MRC_MSS_MIN without ending its message.
               self.data(p, m, 0, 1000, bytes(12))]
        self.case("message lengths, offsets and numbers outside the message",
                  "h2", [t.make(b) for b in bad], {"DropBadMsg": len(bad)})
        self.case("a trimmed DSCP on a full packet (not delivered: NACKed)",
                  "h2", [t.make(self.data(nxt + 10, self.msn, 0, 100,
                                          bytes(100)),
                                tclass=self.a.trim_dscp << 2)],
                  {"InTrimmed": 1, "OutNacks": 1})
        # As a trimming switch leaves a packet: its headers up to RETH.
        self.case("a WRITE cut after RETH (trimmed: NACKed)", "h2",
                  [t.make(self.data(nxt + 11, self.msn, 0, 100, bytes(100))
                          [:P.TRIMMED_LEN], icrc=False)],
                  {"InTrimmed": 1, "OutNacks": 1},
                  lambda d: not d.get("InIcrcErrors", 0))
        self.guess_ids(10)
        u = self.to_h1
        h1, h2 = self.h1_cid, self.h2_cid
        self.case("ACKs for PSNs never sent", "h1",
                  [u.make(self.sack(nxt + 9 + i)) for i in range(5)],
                  {"DropAckUnsent": 5})
        # Bit i names PSN nxt + i, never sent; bit 0 the cumulative
        # point itself, which a receiver never holds.
        self.case("SACK bitmaps that cover unsent PSNs", "h1",
                  [u.make(self.sack(nxt - 1, 1 << i)) for i in range(5)],
                  {"DropSackUnsent": 5})
        self.case("NACKs for unsent PSNs", "h1",
                  [u.make(P.nack10(h1, h2, h1, nxt + 5 + i))
                   for i in range(5)], {"DropNack": 5})
        # Last: the receiver is left holding part of a message that
        # never completes, and its ACKs cover PSNs its peer never sent.
        self.zero_window()

    def zero_window(self):
        """Packets of a message not next in line, more than the window
        the receiver advertised (rwnd of the ACK learnt at idle; its
        right edge never shrinks below that): what fits is taken, and
        each packet past the edge is refused as a zero-window probe
        (DropZeroWindow, NACK NO_BUFFER). None is taken beyond the edge
        (InBeyondWindow), and the buffer, twice the window, is never the
        limit that stops them (DropRcvbuf)."""
        nxt, t = self.nxt, self.to_h2
        # Above the floor of the MSS (1036) and below any MTU of the fabric:
        # the template is the connection's first packet, a short one.
        plen = 1200
        # The connection's first message (the template) is mrcperf's
        # control message; --messages followed it, and the receiver
        # waits for the next. The one after that is never next in line.
        msn = self.msn + 1 + self.a.messages + 1
        # PSN nxt stays a hole, so that the message stays incomplete
        # and the receiver's cumulative PSN is its peer's next.
        n = WND - 1
        frames = [t.make(self.data(nxt + 1 + i, msn, i * plen, WND * plen,
                                   bytes(plen))) for i in range(n)]
        name = "DATA past the advertised window (refused as a zero window)"
        if n * plen <= self.rwnd:
            self.results.write(json.dumps({
                "case": name, "ok": False, "rwnd": self.rwnd, "plen": plen,
                "why": "%d packets do not fill the window" % n}) + "\n")
            self.results.flush()
            return
        self.case(name, "h2", frames, {"DropZeroWindow": 1, "OutNacks": 1},
                  lambda d: not d.get("InBeyondWindow", 0) and
                  not d.get("DropRcvbuf", 0) and
                  d.get("InData", 0) == n)

    def guess_ids(self, secs):
        """For secs seconds, WRITEs, SACKs and RSTs with guessed ids: a
        random receiver QPN, or the right one (an attacker that saw the
        handshake knows it) with a random sender QPN (a WRITE's R_Key, a
        SACK's SPDCID). None may get in: every one is
        dropped as DropNoConn or DropBadCid, and the idle connection
        neither takes data, an ACK or a reset, nor delivers anything."""
        h2, h1, t = self.h2_cid, self.h1_cid, self.to_h2
        before = counters(self.a.h2_ns)
        no_conn = bad_cid = 0
        end = time.time() + secs
        while time.time() < end:
            frames = []
            for _ in range(20):
                right = random.random() < 0.5
                if right:
                    # Not the sender's QPN, nor its low 16 bits.
                    dcid, scid = h2, (h1 + random.randrange(1, 1 << 16)) \
                        & 0xffff | random.getrandbits(8) << 16
                else:
                    dcid, scid = (h2 + random.randrange(1, 1 << 24)) \
                        & P.PSN, h1
                kind = random.randrange(3)
                if kind == 0:
                    pl = self.data(random.getrandbits(24), 0, 0, 100,
                                   bytes(100), qpn=dcid, rkey=scid)
                elif kind == 1:
                    pl = self.sack(random.getrandbits(24), qpn=dcid,
                                   sqpn=scid)
                else:
                    pl = rst(dcid, scid)
                frames.append(t.make(pl))
                if right:
                    bad_cid += 1
                else:
                    no_conn += 1
            sendp(frames, iface="h2")
        want = {"DropNoConn": no_conn, "DropBadCid": bad_cid}
        quiet = ("InData", "InAcks", "InRsts", "MsgsDelivered")
        deadline = time.time() + self.a.timeout
        while True:
            after = counters(self.a.h2_ns)
            delta = {k: after.get(k, 0) - before.get(k, 0)
                     for k in set(after) | set(before)
                     if after.get(k, 0) != before.get(k, 0)}
            ok = (all(delta.get(k, 0) >= n for k, n in want.items()) and
                  not any(delta.get(k, 0) for k in quiet))
            if ok or time.time() > deadline:
                break
            time.sleep(0.2)
        self.results.write(json.dumps({
            "case": "%d s of WRITEs, SACKs and RSTs with guessed ids" % secs,
            "ok": ok, "sent": no_conn + bad_cid, "want": want,
            "quiet": quiet, "delta": delta}) + "\n")
        self.results.flush()

    def learn_data_idle(self):
        """At idle the receiver's next PSN is the sender's next PSN; a
        WRITE far ahead of the window makes the receiver say it, in a SACK
        (after a NACK) to the sender whose cumulative PSN is the one
        before."""
        self.learn_data_template()
        probe = self.to_h2.make(self.data((self.psn + (1 << 23) - 1) & P.PSN,
                                          self.msn, 0, 1, b"x"))
        # The sender's address: the one its data came from.
        sender = self.to_h2.frame[IPv6].src
        before = counters(self.a.h2_ns)
        got = sniff(iface="h1", count=1, timeout=self.a.timeout,
                    started_callback=lambda: sendp(probe, iface="h2"),
                    lfilter=lambda p: IPv6 in p and p[IPv6].dst == sender and
                    (mrc_of(p) or (None,))[0] == SACK10)
        if not got:
            after = counters(self.a.h2_ns)
            raise SystemExit("hostile.py: the receiver did not answer: %s" %
                             {k: after[k] - before.get(k, 0) for k in after
                              if after[k] != before.get(k, 0)})
        self.to_h1 = Link(got[0])
        raw = mrc_of(got[0])[1]
        self.nxt = (struct.unpack_from("!I", raw, P.SETH_CACK)[0] + 1) & P.PSN
        # The AF_MRC extension after CC_STATE begins with the window.
        self.rwnd = struct.unpack_from("!I", raw, P.SACK_LEN)[0]

    def learn_data_template(self):
        with open(self.a.template, "rb") as f:
            state = json.load(f)
        self.h2_cid, self.h1_cid = state["h2_cid"], state["h1_cid"]
        self.psn, self.msn = state["psn"], state["msn"]
        self.to_h2 = Link(Ether(bytes.fromhex(state["frame"])))

    def save_template(self):
        with open(self.a.template, "w") as f:
            json.dump({"h2_cid": self.h2_cid, "h1_cid": self.h1_cid,
                       "psn": self.psn, "msn": self.msn,
                       "frame": bytes(self.to_h2.frame).hex()}, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--phase", choices=("active", "idle"), required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--template", required=True)
    ap.add_argument("--h1-ns", required=True)
    ap.add_argument("--h2-ns", required=True)
    ap.add_argument("--h2-addr", required=True)
    ap.add_argument("--listen-port", type=int, required=True)
    ap.add_argument("--trim-dscp", type=int, required=True)
    ap.add_argument("--probe-rate", type=int, required=True,
                    help="the victim's probe_rate: replies a second")
    ap.add_argument("--messages", type=int, required=True,
                    help="messages the sender sends after mrcperf's "
                    "control message")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--ready", help="active phase: the file to create once "
                    "the capture that learns the connection is open")
    a = ap.parse_args()
    random.seed(os.getpid())
    at = Attack(a)
    if a.phase == "active":
        if not a.ready:
            ap.error("the active phase needs --ready")
        at.active()
        at.save_template()
    else:
        at.idle()


if __name__ == "__main__":
    main()
