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
MACs, connection ids, PSNs: an on-path attacker sees all of them), then
for each case of the phase sends its packets straight to the victim host
(scapy, at layer 2, as the spine would forward them, with the source
address of the victim's peer) and waits until the victim's counters
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
from mrc_pkt import (ACK, DATA, HDR, HDR_LEN, MRC_PORT, MSG_MAX, VERSION,
                     WND, ack, data, hdr, nack, probe, rst, syn,
                     wide_psn)
from scapy.all import (Ether, IPv6, IPv6ExtHdrSegmentRouting, Raw, UDP,
                       conf, sendp, sniff)

conf.verb = 0


def mrc_of(pkt):
    """(type, dcid, scid, body) of an MRC packet, or None."""
    if UDP not in pkt or pkt[UDP].dport != MRC_PORT:
        return None
    raw = bytes(pkt[UDP].payload)
    if len(raw) < HDR.size:
        return None
    v, typ, _, dcid, scid, _, _ = HDR.unpack_from(raw)
    return (typ, dcid, scid, raw) if v == VERSION else None


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

    def make(self, payload, tclass=None, srh=None):
        """The template with this MRC payload (and SRH, traffic class).

        The UDP checksum is computed here, over the IPv6 destination as it
        stands: the kernel checks it so once segments_left is 0, whatever
        the SRH's last entry says (scapy would use that entry)."""
        f = self.frame.copy()
        ip = f[IPv6]
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

    def learn(self, iface, dst, typ, started=None):
        """The next frame of type typ going out of iface to dst; started
        is called once the capture is open."""
        got = sniff(iface=iface, count=1, timeout=self.a.timeout,
                    started_callback=started,
                    lfilter=lambda p: IPv6 in p and p[IPv6].dst == dst and
                    (mrc_of(p) or (None,))[0] == typ)
        if not got:
            raise SystemExit("hostile.py: no packet of type %d to %s seen on %s"
                             % (typ, dst, iface))
        return got[0]

    def learn_data(self):
        # The transfer starts when --ready's file exists, so that no
        # interpreter, however slow to start, misses it.
        f = self.learn("h2", self.a.h2_addr, DATA,
                       lambda: open(self.a.ready, "w").close())
        _, dcid, scid, raw = mrc_of(f)
        psn, msn = struct.unpack_from("!II", raw, HDR.size)
        self.to_h2 = Link(f)
        self.h2_cid, self.h1_cid, self.psn, self.msn = dcid, scid, psn, msn

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
        full = data(h2, h1, self.psn, self.msn, 0, 0, b"")
        frames = [t.make(b"")]
        for typ, n in HDR_LEN.items():
            head = (full if typ == DATA else
                    hdr(typ, h2, h1) + bytes(n - HDR.size))
            start = 1 if typ == DATA else HDR.size
            frames += [t.make(head[:i]) for i in range(start, n)]
        self.case("truncated headers, every length from 0 to the full header",
                  "h2", frames, {"DropShort": len(frames)})
        self.case("zero-length UDP", "h2", [t.make(b"")], {"DropShort": 1})
        # The tunnel socket verifies the UDP checksum itself (the stack
        # leaves it to a plain socket's reader): a wrong one, never 0
        # (which IPv6 refuses before any socket sees it), is counted.
        frames = []
        for i in range(5):
            f = t.make(data(h2, h1, self.psn, self.msn, 0, 100, bytes(100)))
            f[UDP].chksum = (f[UDP].chksum + 1 + i) % 0xffff or 1
            frames.append(f)
        self.case("bad UDP checksums", "h2", frames, {"DropCsum": 5})
        frames = [t.make(hdr(DATA, h2, h1, version=v) + bytes(20))
                  for v in (0, 1, 255)]   # 1: PSNs of 32 bits
        self.case("unknown versions", "h2", frames, {"DropVersion": 3})
        frames = [t.make(hdr(typ, h2, h1) + bytes(64)) for typ in (0, 10, 255)]
        self.case("unknown types", "h2", frames, {"DropType": 3})
        n = 300
        frames = [t.make(data(random.getrandbits(32) | 1, h1, self.psn, 0, 0,
                              100, bytes(100))) for _ in range(n)]
        self.case("unknown connection ids (RSTs rate-limited)", "h2", frames,
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
        # its size: below the floor (1060 bytes), no connection.
        n = 20
        frames = [t.make(syn(random.randrange(3, 1 << 24),
                             random.randrange(1024, 65536),
                             self.a.listen_port, mss))
                  for mss in (0, 64, 536, 1059) for _ in range(n // 4)]
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
        pl = full
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
        h2, h1, nxt = self.h2_cid, self.h1_cid, self.nxt
        t = self.to_h2
        frames = [t.make(data(h2, h1, nxt + WND + 1000 + i, self.msn, 0, 100,
                              bytes(100))) for i in range(5)]
        self.case("PSNs beyond the window", "h2", frames, {"DropPsnWindow": 5})
        frames = [t.make(wide_psn(data(h2, h1, nxt + i, self.msn, 0, 100,
                                       bytes(100)))) for i in range(3)]
        frames += [t.make(wide_psn(syn(h1, 40000 + i, 1)))
                   for i in range(2)]
        self.case("DATA and SYNs whose PSN does not fit 24 bits", "h2",
                  frames, {"DropPsnWindow": 5})
        # Far behind is a duplicate: a retransmitted packet's first copy
        # may arrive that late.
        frames = [t.make(data(h2, h1, nxt - WND - 1000 - i, self.msn, 0, 100,
                              bytes(100))) for i in range(5)]
        self.case("PSNs long before the cumulative point", "h2", frames,
                  {"DropDup": 5})
        p = nxt + 3
        bad = [data(h2, h1, p, self.msn, 0, MSG_MAX + 1, bytes(100)),
               data(h2, h1, p, self.msn, 200, 100, bytes(100)),
               data(h2, h1, p, self.msn, 50, 100, bytes(100)),
               data(h2, h1, p, self.msn, 0, 100, bytes(100), plen=50),
               data(h2, h1, p, self.msn + (1 << 30), 0, 100, bytes(100)),
               # Short of MRC_MSS_MIN without ending its message.
               data(h2, h1, p, self.msn, 0, 1000, bytes(10))]
        self.case("message lengths, offsets and numbers outside the message",
                  "h2", [t.make(b) for b in bad], {"DropBadMsg": len(bad)})
        self.case("a trimmed DSCP on a full packet (not delivered: NACKed)",
                  "h2", [t.make(data(h2, h1, nxt + 10, self.msn, 0, 100,
                                     bytes(100)),
                                tclass=self.a.trim_dscp << 2)],
                  {"InTrimmed": 1, "OutNacks": 1})
        self.guess_ids(10)
        u = self.to_h1
        self.case("ACKs for PSNs never sent", "h1",
                  [u.make(ack(h1, h2, nxt + 10 + i)) for i in range(5)],
                  {"DropAckUnsent": 5})
        self.case("SACK bitmaps that cover unsent PSNs", "h1",
                  [u.make(ack(h1, h2, nxt, (1 << i, 0, 0, 0)))
                   for i in range(5)], {"DropSackUnsent": 5})
        self.case("NACKs for unsent PSNs", "h1",
                  [u.make(nack(h1, h2, nxt + 5 + i)) for i in range(5)],
                  {"DropNack": 5})
        self.case("ACKs and NACKs whose PSN does not fit 24 bits", "h1",
                  [u.make(wide_psn(ack(h1, h2, nxt))) for i in range(3)] +
                  [u.make(wide_psn(nack(h1, h2, nxt))) for i in range(2)],
                  {"DropPsnWindow": 5})
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
        h2, h1, nxt, t = self.h2_cid, self.h1_cid, self.nxt, self.to_h2
        # The floor of the MSS (1060) and below any MTU of the fabric:
        # the template is the connection's first packet, a short one.
        plen = 1200
        # The connection's first message (the template) is mrcperf's
        # control message; --messages followed it, and the receiver
        # waits for the next. The one after that is never next in line.
        msn = self.msn + 1 + self.a.messages + 1
        # PSN nxt stays a hole, so that the message stays incomplete
        # and the receiver's cumulative PSN is its peer's next.
        n = WND - 1
        frames = [t.make(data(h2, h1, nxt + 1 + i, msn, i * plen, WND * plen,
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
        """For secs seconds, DATA, ACKs and RSTs with guessed ids: a random
        receiver id, or the right one (an attacker that saw the handshake
        knows it) with a random sender id. None may get in: every one is
        dropped as DropNoConn or DropBadCid, and the idle connection
        neither takes data, an ACK or a reset, nor delivers anything."""
        h2, h1, t = self.h2_cid, self.h1_cid, self.to_h2
        before = counters(self.a.h2_ns)
        no_conn = bad_cid = 0
        end = time.time() + secs
        while time.time() < end:
            frames = []
            for _ in range(20):
                guess = random.getrandbits(32) | 1
                right = random.random() < 0.5
                dcid, scid = (h2, guess) if right else (guess, h1)
                kind = random.randrange(3)
                if kind == 0:
                    pl = data(dcid, scid, random.getrandbits(24), 0, 0, 100,
                              bytes(100))
                elif kind == 1:
                    pl = ack(dcid, scid, random.getrandbits(24))
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
            "case": "%d s of DATA, ACKs and RSTs with guessed ids" % secs,
            "ok": ok, "sent": no_conn + bad_cid, "want": want,
            "quiet": quiet, "delta": delta}) + "\n")
        self.results.flush()

    def learn_data_idle(self):
        """At idle the receiver's next PSN is the sender's next PSN; a
        DATA packet far ahead of the window makes the receiver say it."""
        self.learn_data_template()
        probe = self.to_h2.make(data(self.h2_cid, self.h1_cid,
                                     (self.psn + (1 << 23) - 1) & 0xffffff,
                                     self.msn, 0, 1, b"x"))
        # The sender's address: the one its data came from.
        sender = self.to_h2.frame[IPv6].src
        before = counters(self.a.h2_ns)
        got = sniff(iface="h1", count=1, timeout=self.a.timeout,
                    started_callback=lambda: sendp(probe, iface="h2"),
                    lfilter=lambda p: IPv6 in p and p[IPv6].dst == sender and
                    (mrc_of(p) or (None,))[0] == ACK)
        if not got:
            after = counters(self.a.h2_ns)
            raise SystemExit("hostile.py: the receiver did not answer: %s" %
                             {k: after[k] - before.get(k, 0) for k in after
                              if after[k] != before.get(k, 0)})
        self.to_h1 = Link(got[0])
        raw = mrc_of(got[0])[3]
        self.nxt = struct.unpack_from("!I", raw, HDR.size)[0]
        # cum_psn, the SACK bitmap, ev_echo, a reserved field, then rwnd.
        self.rwnd = struct.unpack_from("!I", raw, HDR.size + 4 + 32 + 4)[0]

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
