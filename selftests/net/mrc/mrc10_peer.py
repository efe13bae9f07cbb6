#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mrc10_peer.py: a user-space MRC 1.0 endpoint, for conformance tests.

It speaks AF_MRC over MRC 1.0 as Documentation/networking/mrc-1.0-mapping.rst
("the mapping") says, over an IPv6 UDP socket (or a tun device), with
packets built and read by mrc10.py alone: it shares no code with the module
or its other tools.

    mrc10_peer.py listen [--port 7000] [--drop 3,40] [--nack-trimmed 5]
    mrc10_peer.py connect ::1 --sizes 0,1,5000,100000 --seed 1
    mrc10_peer.py peer 2001:db8::1 --qpn 7 --peer-qpn 9 --isn 0 \
        --peer-isn 16777200 --sizes 1,9000 --expect 4

listen accepts one connection and reassembles the messages it is sent;
connect sends messages of seeded random content. peer has no handshake:
its queue pair is set up out of band, as RDMA's are (mapping: No
handshake), from both QPNs and both initial PSNs; it sends --sizes and
receives --expect messages, and is done once everything it sent is
SACKed and it has delivered as many as expected (no FIN either). listen
and connect print "MSN LENGTH SHA256" per message (sent, or delivered),
peer "tx MSN LENGTH SHA256" and "rx MSN LENGTH SHA256"; counters and
nonconforming fields go to stderr, and all of it to the --json file if
given. Every packet carries its ICRC (mapping: ICRC); one received with a
bad ICRC is counted (icrc_errors) and dropped. Drop, NACK and trim
injection, and that of losses, take packet indices from the sender's
initial PSN. --tun DEV
sends and receives whole IPv6 packets on a tun device instead of a UDP
socket, as a host behind DEV: for a peer whose own UDP port is taken (by
the module, in every namespace it runs in). Where the mapping is silent,
the choice made is marked "Silent:".
"""
import argparse
import collections
import fcntl
import hashlib
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

import mrc10
from mrc10 import (BTH, METH, TSETH, RETH, ImmDt, SETH, CCState, NETH, PETH,
                   ERTH, EETH, XAck, XConn)

PSN_MOD, MSN_MOD = 1 << 24, 1 << 16
# PSNs accepted beyond cack_psn: MPR 2 (mapping: PSN, "today 256 packets").
WINDOW = 256
# The default MSS: the IPv6 minimum MTU less IPv6 40, UDP 8, the _IMM
# header stack 40 and the ICRC 4; a multiple of 4 (mapping: Padding).
MSS = 1188
# Silent: the receive window the extension advertises is a constant; this
# peer buffers in user space, so its window never closes.
RWND = 1 << 22
TRIM_LEN = 36                        # BTH METH TSETH RETH (mapping: Trimming)
DSCP_TRIMMED = {12: 0x01, 16: 0x02}  # MC's code points (mapping: Trimming)
RETRIABLE = {0x01, 0x02, 0x06, 0x07, 0x0A, 0x0B}   # mapping: NACK
IMM = (mrc10.WRITE_LAST_IMM, mrc10.WRITE_ONLY_IMM)
ENDS = IMM + (mrc10.WRITE_LAST, mrc10.WRITE_ONLY)
UDP_NO_CHECK6_RX = 102               # linux/udp.h
IPV6_FLOWINFO, IPV6_AUTOFLOWLABEL = 11, 70      # linux/in6.h
TUNSETIFF, IFF_TUN, IFF_NO_PI = 0x400454ca, 0x0001, 0x1000
# NACK reasons sent again at once; the others that are retriable mean the
# receiver had no room, and wait (mapping: NACK).
TRIM_REASONS = {0x01, 0x02}


def sub(a, b):
    """A - B modulo 2^24, signed: half the space either way (mapping)."""
    return (a - b + (1 << 23)) % PSN_MOD - (1 << 23)


def now_us():
    return int(time.monotonic() * 1e6)


class Wire:
    """An IPv6 UDP socket that sends MRC 1.0 packets with their ICRC and
    receives, decodes and checks them. TAP(src, sport, dst, dport, data)
    sees every datagram sent, as it goes on the wire after UDP. Silent:
    one path; our EV is the socket's UDP source port and a flow label of 0
    (FL, sent as it is: no automatic flow label), and we send to the
    peer's MRC port, never to the source port of what it sent (that is
    its EV)."""

    def __init__(self, addr, port, tap=None, verbose=False):
        self.sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        for opt in (socket.IPV6_RECVPKTINFO, socket.IPV6_RECVTCLASS,
                    IPV6_FLOWINFO):
            self.sock.setsockopt(socket.IPPROTO_IPV6, opt, 1)
        self.sock.setsockopt(socket.IPPROTO_IPV6, IPV6_AUTOFLOWLABEL, 0)
        # A UDP checksum of 0 is accepted (mapping: The stack).
        self.sock.setsockopt(socket.IPPROTO_UDP, UDP_NO_CHECK6_RX, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.sock.bind((addr, port))
        self.addr, self.port, self.fl = addr, self.sock.getsockname()[1], 0
        self.tap, self.verbose = tap, verbose
        self.stats = collections.Counter()
        self.srcs = {}

    def src_for(self, dst):
        """Our address towards DST: the bound one, or the route's."""
        if self.addr not in ("", "::"):
            return self.addr
        if dst not in self.srcs:
            with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
                s.connect((dst, 9))
                self.srcs[dst] = s.getsockname()[0]
        return self.srcs[dst]

    def send(self, dst, dport, pkt, tclass=0, cut=None):
        """Send PKT (BTH and what follows) with its ICRC, in traffic class
        TCLASS; with CUT, only its first CUT bytes (a trimmed packet, which
        keeps no ICRC)."""
        ip = IPv6(src=self.src_for(dst), dst=dst) / \
            UDP(sport=self.port, dport=dport) / pkt
        data = bytes(mrc10.with_icrc(ip)[UDP])[8:]
        if cut is not None:
            data = data[:cut]
        self.transmit(ip.src, dst, dport, data, tclass)
        self.stats["tx_%02x" % pkt.opcode] += 1
        if self.verbose:
            print("tx", repr(pkt)[:300], file=sys.stderr)
        if self.tap:
            self.tap(ip.src, self.port, dst, dport, data)

    def transmit(self, src, dst, dport, data, tclass):
        anc = [(socket.IPPROTO_IPV6, socket.IPV6_TCLASS,
                struct.pack("i", tclass))] if tclass else []
        self.sock.sendmsg([data], anc, 0, (dst, dport))

    def fileno(self):
        return self.sock.fileno()

    def close(self):
        self.sock.close()

    def read(self):
        """One datagram as (source, source port, destination, traffic
        class, flow label, UDP payload), or None if it is not for us."""
        data, anc, _, peer = self.sock.recvmsg(65535, 256)
        dst, tclass, fl = self.addr, 0, 0
        for _, typ, val in anc:
            if typ == socket.IPV6_PKTINFO:
                dst = socket.inet_ntop(socket.AF_INET6, val[:16])
            elif typ == socket.IPV6_TCLASS:
                tclass = struct.unpack("i", val[:4])[0]
            elif typ == IPV6_FLOWINFO:
                fl = struct.unpack("!I", val[:4])[0] & 0xFFFFF
        return peer[0].split("%")[0], peer[1], dst, tclass, fl, data

    def recv(self, timeout):
        """The next datagram as (IPv6 packet decoded from BTH on, its UDP
        payload, traffic class, arrival in us), or None after TIMEOUT."""
        end = time.monotonic() + timeout
        while True:
            left = max(0, end - time.monotonic())
            if not select.select([self], [], [], left)[0]:
                return None
            got = self.read()
            if got is not None:
                break
        src, sport, dst, tclass, fl, data = got
        ip = IPv6(src=src, dst=dst, tc=tclass, fl=fl) / \
            UDP(sport=sport, dport=self.port, len=8 + len(data)) / \
            BTH(data)
        if self.verbose:
            print("rx", repr(ip[BTH])[:300], file=sys.stderr)
        return ip, data, tclass, now_us()


class TunWire(Wire):
    """The same over the tun device NAME (made beforehand, e.g. by ip
    tuntap add NAME mode tun): whole IPv6 packets, from our address ADDR
    and UDP port PORT, with a flow label of our choice, and only those to
    ADDR and PORT taken (the rest counted as not_ours). The host routes
    ADDR to NAME, so we are a host behind it: its own MRC port is no
    concern of ours, nor ours of it."""

    def __init__(self, name, addr, port, tap=None, verbose=False):
        # pylint: disable=super-init-not-called
        self.fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(self.fd, TUNSETIFF,
                    struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
        self.addr, self.port = addr, port
        self.bin = socket.inet_pton(socket.AF_INET6, addr)
        self.fl = random.SystemRandom().randrange(1, 1 << 20)
        self.tap, self.verbose = tap, verbose
        self.stats = collections.Counter()

    def src_for(self, dst):
        return self.addr

    def transmit(self, src, dst, dport, data, tclass):
        os.write(self.fd, bytes(IPv6(src=src, dst=dst, tc=tclass, fl=self.fl,
                                     hlim=64) /
                                UDP(sport=self.port, dport=dport) /
                                Raw(data)))

    def fileno(self):
        return self.fd

    def close(self):
        os.close(self.fd)

    def read(self):
        raw = os.read(self.fd, 65535)
        if len(raw) < 48 or raw[0] >> 4 != 6 or raw[6] != 17 or \
                raw[24:40] != self.bin or \
                struct.unpack("!H", raw[42:44])[0] != self.port:
            self.stats["not_ours"] += 1
            return None
        word, = struct.unpack("!I", raw[:4])
        sport, _, ulen = struct.unpack("!HHH", raw[40:46])
        return (socket.inet_ntop(socket.AF_INET6, raw[8:24]), sport,
                self.addr, word >> 20 & 0xFF, word & 0xFFFFF,
                raw[48:40 + ulen])


class Seg:
    """A WRITE packet the sender keeps until it is acknowledged."""

    def __init__(self, op, msn, off, data, mlen):
        self.op, self.msn, self.off, self.data, self.mlen = \
            op, msn, off, data, mlen
        self.psn, self.sacked, self.fast = None, False, False
        # A NACK for want of room: sent again at HOLD (monotonic), NACKS
        # such in a row.
        self.hold, self.nacks = None, 0


class Msg:
    """A message being reassembled: its bytes by RETH VA (offset)."""

    def __init__(self, mlen):
        self.len, self.buf, self.offs, self.ended = \
            mlen, bytearray(mlen), {}, False


class Endpoint:
    """One AF_MRC connection over MRC 1.0. Both roles speak the handshake,
    SACKs and both FINs; the connector sends messages, the listener
    receives them. In peer mode there is no handshake and no FIN: the
    queue pair is set up from the command line, and it sends and receives.
    ARGS are the command line's (see main)."""

    def __init__(self, wire, args, messages=()):
        self.w, self.a, self.stats = wire, args, wire.stats
        rnd = random.SystemRandom()
        # Never 0, 1 or 2 (mapping: QPN).
        self.qpn = args.qpn or rnd.randrange(3, PSN_MOD)
        self.isn = rnd.randrange(PSN_MOD) if args.isn is None else args.isn
        self.state = {"connect": "syn_sent", "listen": "listen",
                      "peer": "established"}[args.mode]
        self.offer_xack, self.xack = not args.no_xack, False
        self.peer, self.peer_qpn, self.mss = None, 0, args.mss & ~3
        self.sport = args.sport if args.mode == "connect" else args.port
        self.dport = args.port if args.mode == "connect" else 0
        self.nonconf = collections.Counter()
        # Receive side.
        self.rcv_nxt, self.peer_isn, self.held, self.msgs = 0, 0, set(), {}
        self.next_msn, self.rcvd_bytes, self.fin_msn = 0, 0, None
        self.delivered = []
        self.drop = collections.Counter(args.drop)
        self.nack = dict.fromkeys(args.nack_trimmed, 0x01)
        self.nack.update(dict.fromkeys(args.nack_nobuf, 0x07))
        self.trim = collections.Counter(args.send_trimmed)
        self.lose = collections.Counter(args.send_lost)
        self.holding = set()
        # Send side. MSN starts at 0, so a FIN's final MSN is the number of
        # messages sent, as mrc.rst has it (Silent: the mapping is).
        self.messages, self.unsent, self.out = list(messages), [], {}
        self.snd_nxt, self.out_bytes, self.mpr, self.peer_rwnd = \
            self.isn, 0, 1, RWND
        self.fin_at, self.fin_acked = None, False
        self.timer, self.backoff, self.retries = time.monotonic(), 1, 0
        if self.state == "syn_sent":
            self.peer = (args.addr, args.peer_udp_port)
            self.send_xconn(mrc10.X_SYN)
        elif args.mode == "peer":
            # What a handshake would have told (mapping: No handshake):
            # the extension is spoken unless --no-xack says the other end
            # does not.
            self.peer = (args.addr, args.peer_udp_port)
            self.peer_qpn, self.peer_isn = args.peer_qpn, args.peer_isn
            self.rcv_nxt, self.peer_rwnd = self.peer_isn, args.peer_rwnd
            self.xack = self.offer_xack
            self.segment()

    def ev(self):
        """Our EV as SACKs and NACKs echo it (mapping: The stack)."""
        return self.w.port << 16 | self.w.fl & 0xFFFF

    # Sending.
    def send(self, pkt, **kw):
        self.w.send(self.peer[0], self.peer[1], pkt, **kw)

    def send_xconn(self, typ, value=0, tsecr=0):
        """SYN, SYN-ACK, FIN: an Endpoint Request to QP 2, ERTH op 2, the
        type in ERTH's vendor byte, then the connection header (mapping:
        the AF_MRC extension). Silent: BTH.PSN is the sender's next PSN, as
        a probe's is, and ERTH's port mask 0."""
        self.send(BTH(opcode=mrc10.ENDPOINT_REQUEST, dqpn=mrc10.ENDPOINT_QP,
                      psn=self.snd_nxt) /
                  ERTH(op=mrc10.EP_AFMRC, vendor=typ, tx_ts=now_us() & 0xFFFF,
                       tsr=1, ftype=1) /
                  XConn(sport=self.sport, dport=self.dport, sqpn=self.qpn,
                        dqpn=self.peer_qpn, value=value, rwnd=RWND,
                        isn=self.isn if typ != mrc10.X_FIN else 0,
                        mss=self.mss, tsval=now_us() & 0xFFFFFFFF,
                        flags=mrc10.XCONN_XACK if self.offer_xack else 0,
                        tsecr=tsecr))

    def send_sack(self, trig, ev, arrived, ce=False, dup=False, probe=None):
        """SACK(s) for the packet TRIG = (PSN, TSETH timestamp), sent from
        UDP port EV (mapping: SACK). A PSN more than 64 past cack_psn gets a
        second SACK whose bitmap is its 64-PSN block (mapping: "one further
        SACK per 64-PSN block that changed")."""
        # Silent: BTH.PSN is cack_psn, as both sources send (sources §3);
        # rcvd_bytes counts payload not received before.
        cack = (self.rcv_nxt - 1) % PSN_MOD
        k = sub(trig[0], cack) - 1
        offsets = [1] + ([1 + k // 64 * 64] if 64 <= k < WINDOW and
                         probe is None else [])
        for off in offsets:
            bitmap = sum(1 << i for i in range(64)
                         if (cack + off + i) % PSN_MOD in self.held)
            pkt = BTH(opcode=mrc10.RELIABILITY_SACK, dqpn=self.peer_qpn,
                      psn=cack) / \
                SETH(m=1 if ce else 0, pr=int(probe is not None),
                     x=int(self.xack), entropy=ev,
                     ack_psn_offset=probe - (probe >> 15 << 16) if probe
                     is not None else max(-32768, min(32767, k + 1)),
                     spdcid=self.qpn & 0xFFFF, dpdcid=self.peer_qpn & 0xFFFF,
                     cack_psn=cack, mpr=max(1, WINDOW // 128),
                     sack_offset=off, bitmap=bitmap) / \
                CCState(tx_ts=trig[1], ooo_count=min(len(self.held), 0x7FFF),
                        rcvd_bytes=self.rcvd_bytes // 256 % PSN_MOD)
            if self.xack:
                pkt = pkt / XAck(
                    rwnd=RWND, hold_us=min(0xFFFF, now_us() - arrived),
                    flags=(mrc10.XACK_FIN if self.fin_msn is not None else 0) |
                    (mrc10.XACK_DUP if dup else 0))
            self.send(pkt)

    def send_nack(self, psn, ts, ev, reason):
        """A NACK (mapping: NACK); Silent: BTH.PSN is nack_psn (sources
        §3)."""
        self.stats["nack_%02x" % reason] += 1
        self.send(BTH(opcode=mrc10.RELIABILITY_NACK, dqpn=self.peer_qpn,
                      psn=psn) /
                  NETH(reason=reason, entropy=ev, spdcid=self.qpn & 0xFFFF,
                       dpdcid=self.peer_qpn & 0xFFFF, nack_psn=psn, cc_type=2,
                       tx_ts=ts))

    def send_seg(self, seg, rtx=False, ack_req=False, trim=False):
        """A WRITE packet (mapping: Data): the payload padded to 4 bytes,
        RETH VA its offset, R_Key our QPN, DMA length and ImmDt the
        message's length. TRIM sends it as a trimming switch leaves it:
        BTH to RETH, the trimmed DSCP (mapping: Trimming)."""
        pad = -len(seg.data) % 4
        pkt = BTH(opcode=seg.op, padcnt=pad, dqpn=self.peer_qpn,
                  a=int(ack_req), rtx=int(rtx), ts=1, psn=seg.psn) / \
            METH(rqmsn=seg.msn % MSN_MOD, msn=seg.msn % MSN_MOD) / \
            TSETH(tx_ts=now_us() & 0xFFFF, tsr=1, ftype=1) / \
            RETH(va=seg.off, rkey=self.qpn, dmalen=seg.mlen)
        if seg.op in IMM:
            pkt = pkt / ImmDt(imm=seg.mlen)
        if trim:
            self.stats["tx_trimmed"] += 1
            self.send(pkt / Raw(seg.data + bytes(pad)), cut=TRIM_LEN,
                      tclass=min(DSCP_TRIMMED) << 2)
        else:
            self.send(pkt / Raw(seg.data + bytes(pad)))

    def segment(self):
        """Cut the messages into WRITE packets of at most one MSS."""
        for msn, data in enumerate(self.messages):
            n = max(1, -(-len(data) // self.mss))
            for i in range(n):
                op = (mrc10.WRITE_ONLY_IMM if n == 1 else
                      mrc10.WRITE_FIRST if i == 0 else
                      mrc10.WRITE_LAST_IMM if i == n - 1 else
                      mrc10.WRITE_MIDDLE)
                self.unsent.append(Seg(op, msn, i * self.mss,
                                       data[i * self.mss:(i + 1) * self.mss],
                                       len(data)))
        self.unsent.reverse()

    def can_send(self, seg):
        """Fewer packets past cack_psn than MPR and our window allow, and
        the bytes within the window the extension advertises (unless
        --ignore-rwnd, which provokes NACKs for want of room)."""
        return len(self.out) < min(self.mpr * 128, self.a.window) and \
            (not self.out or self.a.ignore_rwnd or
             self.out_bytes + len(seg.data) <= self.peer_rwnd)

    def pump(self, burst=8):
        """Send new packets, BURST at most, so that SACKs are read
        between bursts."""
        while self.unsent and self.can_send(self.unsent[-1]) and burst:
            burst -= 1
            seg = self.unsent.pop()
            seg.psn, self.snd_nxt = self.snd_nxt, (self.snd_nxt + 1) % PSN_MOD
            if not self.out:
                self.timer = time.monotonic()
            self.out[seg.psn] = seg
            self.out_bytes += len(seg.data)
            # A: the last packet the window lets out (mapping: BTH), and
            # (Silent) every retransmission.
            index = (seg.psn - self.isn) % PSN_MOD
            trim, lose = self.trim[index] > 0, self.lose[index] > 0
            self.trim[index] -= trim
            self.lose[index] -= lose
            if lose:
                self.stats["lost_injected"] += 1
                continue
            self.send_seg(seg, ack_req=not self.unsent or
                          not self.can_send(self.unsent[-1]), trim=trim)

    # Receiving.
    def handle(self, rx):
        """Check and dispatch one received datagram (Wire.recv's)."""
        ip, data, tclass, arrived = rx
        # The EV in the structured form: the source port above, the flow
        # label's low 16 bits below (mapping: The stack).
        bth, ev = ip[BTH], ip[UDP].sport << 16 | ip.fl & 0xFFFF
        op = bth.opcode
        if op not in mrc10.HDR_LEN:
            self.stats["bad_opcode"] += 1
            return
        hlen = 12 + mrc10.HDR_LEN[op] + \
            (4 if op in mrc10.WRITES and bth.ts else 0)
        trimmed = op in mrc10.WRITES and (
            tclass >> 2 in DSCP_TRIMMED or len(data) < hlen + mrc10.ICRC_LEN)
        if trimmed and bth.ts and len(data) >= TRIM_LEN:
            # A trimmed packet's ICRC is not checked (mapping: Trimming).
            if self.established(bth.dqpn, ip.src):
                self.stats["rx_trimmed"] += 1
                self.send_nack(bth.psn, ip[TSETH].tx_ts, ev,
                               DSCP_TRIMMED.get(tclass >> 2, 0x01))
            return
        if len(data) < hlen + mrc10.ICRC_LEN:
            self.stats["short"] += 1
            return
        if not mrc10.icrc_ok(ip):
            self.stats["icrc_errors"] += 1
            return
        self.stats["rx_%02x" % op] += 1
        if bth.pkey != 0xFFFF:
            self.nonconf["BTH P_Key not 0xFFFF"] += 1
        if bth.dqpn == mrc10.ENDPOINT_QP and op == mrc10.ENDPOINT_REQUEST:
            self.on_endpoint(ip, ev, arrived)
        elif not self.established(bth.dqpn, ip.src):
            self.stats["unknown_qp"] += 1
        elif op in mrc10.WRITES:
            self.on_write(ip, data, hlen, tclass, ev, arrived)
        elif op in (mrc10.RELIABILITY_SACK, mrc10.RELIABILITY_NACK,
                    mrc10.RELIABILITY_PROBE):
            hdr = ip[{mrc10.RELIABILITY_SACK: SETH,
                      mrc10.RELIABILITY_NACK: NETH}.get(op, PETH)]
            if hdr.dpdcid != self.qpn & 0xFFFF:    # mapping: QPN
                self.stats["bad_dpdcid"] += 1
                return
            if hdr.spdcid != self.peer_qpn & 0xFFFF:
                self.nonconf["SPDCID not the peer's QPN"] += 1
            # Every packet we send has the same EV (one path), so each
            # SACK and NACK must echo it.
            if op != mrc10.RELIABILITY_PROBE:
                if bth.psn != (hdr.cack_psn if op == mrc10.RELIABILITY_SACK
                               else hdr.nack_psn):
                    self.nonconf["BTH PSN not cack_psn or nack_psn"] += 1
                if hdr.entropy != self.ev():
                    self.nonconf["entropy not our EV"] += 1
            if op == mrc10.RELIABILITY_SACK:
                self.on_sack(ip)
            elif op == mrc10.RELIABILITY_NACK:
                self.on_nack(ip[NETH])
            else:
                # A probe is answered by a SACK with pr and its id
                # (mapping: Probes). Silent: this peer sends none.
                self.send_sack((bth.psn, hdr.tx_ts), ev, arrived,
                               probe=hdr.probe_id)
        else:
            self.stats["unexpected_opcode"] += 1

    def established(self, qpn, src):
        """Whether a packet to QPN from SRC is for our connection."""
        return self.state not in ("listen", "syn_sent", "reset") and \
            qpn == self.qpn and src == self.peer[0]

    def on_endpoint(self, ip, ev, arrived):
        e = ip[ERTH]
        if e.op == mrc10.EP_EV_PROBE:
            # A path probe: the response echoes BTH.PSN and the timestamp
            # (mapping: Probes).
            self.w.send(ip.src, self.a.peer_udp_port,
                        BTH(opcode=mrc10.ENDPOINT_RESPONSE,
                            dqpn=mrc10.ENDPOINT_QP, psn=ip[BTH].psn) /
                        EETH(op=mrc10.EP_EV_PROBE, tx_ts=e.tx_ts))
            return
        if e.op != mrc10.EP_AFMRC or not ip.haslayer(XConn):
            self.stats["bad_endpoint_request"] += 1
            return
        x, typ = ip[XConn], e.vendor
        if typ == mrc10.X_SYN:
            self.on_syn(ip, x)
        elif x.dqpn != self.qpn or (self.peer_qpn and
                                    x.sqpn != self.peer_qpn):
            self.stats["unknown_qp"] += 1
        elif typ == mrc10.X_SYNACK and self.state != "listen":
            self.on_synack(ip, x, ev, arrived)
        elif typ == mrc10.X_FIN and self.established(x.dqpn, ip.src):
            self.on_fin(ip, x, ev, arrived)
        elif typ == mrc10.X_RST:
            # Silent: a RST ends the connection whatever its reason; this
            # peer sends none.
            self.state = "reset"
        else:
            self.stats["unexpected_xconn"] += 1

    def on_syn(self, ip, x):
        """A SYN to our port: the connection, or a duplicate SYN answered
        again. Silent: one connection per listener; no SYN-ACK timer (the
        connector's SYN retransmission repairs a lost SYN-ACK)."""
        if self.a.mode != "listen" or x.dport != self.a.port:
            self.stats["no_listener"] += 1
            return
        if self.state == "listen":
            self.peer, self.dport = (ip.src, self.a.peer_udp_port), x.sport
            self.adopt(x)
        elif (ip.src, x.sqpn) != (self.peer[0], self.peer_qpn):
            self.stats["busy"] += 1
            return
        self.send_xconn(mrc10.X_SYNACK, tsecr=x.tsval)

    def adopt(self, x):
        """The peer's QPN, ISN, window and MSS from its SYN or SYN-ACK X;
        the extension if both offer it; the smaller MSS (mrc.rst)."""
        self.peer_qpn, self.peer_isn = x.sqpn, x.isn % PSN_MOD
        self.rcv_nxt, self.peer_rwnd, self.state = \
            self.peer_isn, x.rwnd, "established"
        self.xack = self.offer_xack and bool(x.flags & mrc10.XCONN_XACK)
        self.mss = min(self.mss, x.mss) & ~3

    def on_synack(self, ip, x, ev, arrived):
        """The SYN-ACK: the listener's QPN, ISN, MSS and window. Answered
        by a SACK of nothing (the handshake ACK, mrc.rst), again for each
        duplicate. Silent: that SACK echoes ERTH's timestamp."""
        if self.state == "syn_sent":
            self.adopt(x)
            self.backoff, self.retries = 1, 0
            self.segment()
        self.send_sack((ip[BTH].psn, ip[ERTH].tx_ts), ev, arrived)

    def on_fin(self, ip, x, ev, arrived):
        """A FIN: its final MSN, answered by the FIN-ACK, a SACK whose xack
        has FIN set (mapping: the window and the hold time in SACKs; the
        header's MRC10_XACK_FIN). Silent: without the extension, a plain
        SACK answers it."""
        if x.value < self.next_msn or (self.fin_msn is not None and
                                       x.value != self.fin_msn):
            self.stats["bad_fin"] += 1
            return
        self.fin_msn = x.value
        self.send_sack((ip[BTH].psn, ip[ERTH].tx_ts), ev, arrived)

    def on_write(self, ip, data, hlen, tclass, ev, arrived):
        """A WRITE packet: placed in its message by RETH VA, and SACKed
        at once (Silent: every WRITE is, as US does, sources §5)."""
        bth, meth, reth = ip[BTH], ip[METH], ip[RETH]
        psn, ts = bth.psn, ip[TSETH].tx_ts if bth.ts else 0
        payload = data[hlen:len(data) - mrc10.ICRC_LEN]
        if bth.padcnt > len(payload) or len(payload) % 4:
            self.stats["bad_pad"] += 1
            return
        payload = payload[:len(payload) - bth.padcnt]
        ce, d = tclass & 3 == 3, sub(psn, self.rcv_nxt)
        if d < 0 or psn in self.held:
            self.stats["rx_dup"] += 1
            self.send_sack((psn, ts), ev, arrived, ce, dup=True)
            return
        if d >= WINDOW:
            self.send_nack(psn, ts, ev, 0x0B)    # mapping: Counters
            return
        index = (psn - self.peer_isn) % PSN_MOD
        if self.drop[index] > 0:
            self.drop[index] -= 1
            self.stats["dropped_injected"] += 1
            return
        if index in self.nack:
            self.send_nack(psn, ts, ev, self.nack.pop(index))
            return
        # Silent: the 16-bit MSN is taken as the nearest at or after the
        # next message to deliver.
        ahead = (meth.msn - self.next_msn) % MSN_MOD
        m = self.msgs.get(self.next_msn + ahead, Msg(reth.dmalen))
        if ahead >= MSN_MOD // 2 or reth.dmalen != m.len or \
                reth.va + len(payload) > m.len:
            self.stats["malformed"] += 1
            return
        # Silent: values the mapping fixes but that do not stop delivery
        # are counted as nonconforming, and the packet taken.
        for bad, what in ((meth.rqmsn != meth.msn, "RQMSN not MSN"),
                          (reth.rkey != self.peer_qpn,
                           "R_Key not the sender's QPN"),
                          (len(payload) > self.a.mss,
                           "payload above the MSS we take"),
                          (not bth.ts, "no TSETH"),
                          (bth.ts and ip[TSETH].ftype != 1, "TSETH ftype"),
                          (bth.opcode in ENDS and bth.opcode not in IMM,
                           "message ends without _IMM"),
                          (bth.opcode in IMM and ip[ImmDt].imm != m.len,
                           "ImmDt not the length")):
            if bad:
                self.nonconf[what] += 1
        self.msgs[self.next_msn + ahead] = m
        m.buf[reth.va:reth.va + len(payload)] = payload
        m.offs[reth.va] = len(payload)
        m.ended |= bth.opcode in ENDS
        self.held.add(psn)
        self.rcvd_bytes += len(payload)
        while self.rcv_nxt in self.held:
            self.held.remove(self.rcv_nxt)
            self.rcv_nxt = (self.rcv_nxt + 1) % PSN_MOD
        self.deliver()
        self.send_sack((psn, ts), ev, arrived, ce)

    def deliver(self):
        """Complete messages, in MSN order (Silent: as US completes them,
        sources §4.1)."""
        m = self.msgs.get(self.next_msn)
        while m is not None and m.ended and sum(m.offs.values()) == m.len:
            del self.msgs[self.next_msn]
            self.delivered.append(
                {"msn": self.next_msn, "len": m.len,
                 "sha256": hashlib.sha256(m.buf).hexdigest()})
            self.next_msn += 1
            m = self.msgs.get(self.next_msn)

    def on_sack(self, ip):
        """Everything up to cack_psn is acknowledged, then whatever the
        bitmap says from its base. Silent: a PSN not received below the
        highest received is a hole, sent again at once, once (the RTO
        repairs the rest)."""
        s = ip[SETH]
        if s.x != self.xack:
            self.nonconf["SETH x not as negotiated"] += 1
        if (s.sack_offset - 1) % 64 or (s.cc_type, s.cc_fl) != (0, 0) or \
                not s.mpr:
            self.nonconf["sack_offset not 1 + 64k, cc not 0 or MPR 0"] += 1
        if ip.haslayer(XAck):
            self.peer_rwnd = ip[XAck].rwnd
            self.fin_acked |= bool(self.fin_at and
                                   ip[XAck].flags & mrc10.XACK_FIN)
        elif self.fin_at and not self.xack:
            self.fin_acked = True    # Silent: any SACK after our FIN
        self.mpr = max(1, s.mpr)
        progress = False
        for psn in list(self.out):
            if sub(psn, s.cack_psn) > 0:
                break
            self.out_bytes -= len(self.out.pop(psn).data)
            progress = True
        high = None
        for psn, seg in self.out.items():
            if not seg.sacked and s.received(psn):
                seg.sacked = progress = True
            high = psn if seg.sacked else high
        for psn, seg in self.out.items():
            if high is None or sub(psn, high) >= 0:
                break
            if not seg.sacked and not seg.fast:
                seg.fast = True
                self.stats["rtx_sack"] += 1
                self.send_seg(seg, rtx=True, ack_req=True)
        if progress:
            self.timer, self.backoff, self.retries = time.monotonic(), 1, 0

    def on_nack(self, n):
        """A trim sends the packet again at once; the other retriable
        reasons say the receiver had no room: again after a hold, doubled
        for each such NACK in a row up to the RTO (Silent: --nack-hold).
        0x19 resets the connection (mapping: NACK)."""
        seg = self.out.get(n.nack_psn)
        self.stats["rx_nack_%02x" % n.reason] += 1
        if n.cc_type != 2:
            self.nonconf["NETH cc_type not 2"] += 1
        if n.reason == 0x19:
            self.state = "reset"
        elif seg is None or seg.sacked or n.reason not in RETRIABLE:
            self.stats["nack_ignored"] += 1
        elif n.reason in TRIM_REASONS:
            self.stats["rtx_nack"] += 1
            seg.fast = True      # not again for the hole it leaves
            self.send_seg(seg, rtx=True, ack_req=True)
        else:
            seg.fast, seg.nacks = True, seg.nacks + 1
            seg.hold = time.monotonic() + min(
                self.a.rto, self.a.nack_hold * 2 ** min(seg.nacks - 1, 10)) \
                / 1000
            self.holding.add(seg.psn)

    def release(self):
        """Send again the packets whose hold is over."""
        t = time.monotonic()
        for psn in list(self.holding):
            seg = self.out.get(psn)
            if seg is None or seg.sacked:
                self.holding.discard(psn)
            elif seg.hold <= t:
                self.holding.discard(psn)
                self.stats["rtx_nack"] += 1
                self.send_seg(seg, rtx=True, ack_req=True)

    def tick(self):
        """Timers: new packets within the window; the FIN once every
        packet is acknowledged (and, at the listener, once the peer's FIN
        and every message before it are in). Silent: the retransmission
        timeout (--rto, doubling up to 16 times, restarted by progress)
        resends the SYN, the FIN or the oldest packet not acknowledged, and
        lets every hole be sent again on a SACK."""
        self.deliver()
        if self.state == "established":
            self.release()
            self.pump()
            done_rx = self.fin_msn is not None and \
                self.next_msn == self.fin_msn
            if not self.out and not self.unsent and self.fin_at is None and \
                    self.a.mode != "peer" and \
                    (self.a.mode == "connect" or done_rx):
                self.send_xconn(mrc10.X_FIN, value=len(self.messages))
                self.fin_at = self.timer = time.monotonic()
        waiting = self.state == "syn_sent" or \
            (self.state == "established" and
             (self.out or (self.fin_at and not self.fin_acked)))
        if not waiting or time.monotonic() - self.timer < \
                self.a.rto / 1000 * self.backoff:
            return
        self.retries += 1
        if self.retries > self.a.retries:
            self.state = "reset"
            self.stats["timeout"] += 1
            return
        self.stats["rtx_rto"] += 1
        self.timer, self.backoff = time.monotonic(), min(self.backoff * 2, 16)
        if self.state == "syn_sent":
            self.send_xconn(mrc10.X_SYN)
        elif self.out:
            for seg in self.out.values():
                seg.fast = False
            segs = list(self.out.values())
            seg = next((s for s in segs if not s.sacked), segs[0])
            self.send_seg(seg, rtx=True, ack_req=True)
        else:
            self.send_xconn(mrc10.X_FIN, value=len(self.messages))

    def done(self):
        """Our FIN acknowledged and, at the listener, every message up to
        the peer's FIN delivered; in peer mode, everything sent SACKed
        and --expect messages delivered."""
        if self.a.mode == "peer":
            return self.state == "established" and not self.out and \
                not self.unsent and len(self.delivered) >= self.a.expect
        return self.fin_acked and (self.a.mode == "connect" or
                                   self.next_msn == self.fin_msn)


# Set by SIGTERM (main): stop at once, done or not.
STOP = []


def run(ep, timeout, linger):
    """Drive EP until it is done, reset or TIMEOUT seconds pass; then
    linger, still answering (a FIN again, or data whose SACK was lost),
    for LINGER seconds, or until SIGTERM. Returns whether it finished."""
    end, ok = time.monotonic() + timeout, False
    while ep.state != "reset" and time.monotonic() < end and not STOP:
        rx = ep.w.recv(0.005)
        while rx:          # everything queued, then the timers
            ep.handle(rx)
            rx = ep.w.recv(0)
        ep.tick()
        if not ok and ep.done():
            ok, end = True, time.monotonic() + linger
    return ok


def make_messages(sizes, seed):
    """Seeded random content, one bytes per size."""
    rng = random.Random(seed)
    return [rng.randbytes(n) for n in sizes]


def summary(msgs):
    return [{"msn": i, "len": len(m), "sha256": hashlib.sha256(m).hexdigest()}
            for i, m in enumerate(msgs)]


def indices(text):
    return [int(x) for x in text.split(",") if x]


# Options: name, type, default, help; every mode's, then the receiving
# side's (listen, peer), the sending side's (connect, peer) and peer's.
COMMON = [
    ("--udp-port", int, mrc10.UDP_PORT, "UDP port to receive on"),
    ("--peer-udp-port", int, None, "UDP port to send to (--udp-port)"),
    ("--bind", str, "::", "address to bind (with --tun: our address)"),
    ("--tun", str, None, "tun device to send and receive IPv6 packets on, "
     "instead of a UDP socket"),
    ("--port", int, 7000, "AF_MRC port listened on or connected to"),
    ("--mss", int, MSS, "largest payload taken, bytes"),
    ("--window", int, WINDOW, "most packets in flight"),
    ("--rto", float, 200, "retransmission timeout, ms"),
    ("--nack-hold", float, 10, "ms before sending again a packet NACKed "
     "for want of room, doubled for each such NACK in a row"),
    ("--retries", int, 12, "timeouts in a row before giving up"),
    ("--timeout", float, 60, "seconds before giving up"),
    ("--linger", float, 0.5, "seconds to keep answering once done"),
    ("--ready", str, None, "file to create once packets can arrive"),
    ("--json", str, None, "file to write messages and counters to")]
RECEIVE = [
    ("--drop", "indices", [], "packet indices (0 is at the peer's initial "
     "PSN) to drop on first arrival, e.g. 3,70; twice: 3,3"),
    ("--nack-trimmed", "indices", [], "packet indices to NACK (TRIMMED) "
     "on first arrival"),
    ("--nack-nobuf", "indices", [], "likewise, NACK NO_PKT_BUFFER")]
SEND = [
    ("--sizes", "indices", [1000, 100000], "message sizes, bytes"),
    ("--seed", int, 1, "content seed"),
    ("--send-trimmed", "indices", [], "packet indices (0 is at our "
     "initial PSN) to send trimmed the first time, as a switch would"),
    ("--send-lost", "indices", [], "likewise, not to send the first time, "
     "as if lost on the way")]
CONNECT = [
    ("--sport", int, random.SystemRandom().randrange(49152, 65536),
     "our AF_MRC port"),
    ("--isn", int, None, "initial PSN (random)")]
PEER = [
    ("--expect", int, 0, "messages to receive"),
    ("--peer-rwnd", int, 65536, "the peer's receive window, bytes, until "
     "its first SACK says it")]


def parser():
    def add(p, options, **kw):
        for name, typ, default, text in options:
            p.add_argument(name, type=indices if typ == "indices" else typ,
                           default=kw.get(name[2:], default), help=text + (
                               " (default %(default)s)" if default else ""))
    common = argparse.ArgumentParser(add_help=False)
    add(common, COMMON)
    common.add_argument("--no-xack", action="store_true",
                        help="do not offer (peer: speak) the AF_MRC SACK "
                        "extension (xack)")
    common.add_argument("-v", "--verbose", action="store_true",
                        help="print every packet to stderr")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = p.add_subparsers(dest="mode", required=True)
    lis = modes.add_parser("listen", parents=[common],
                           help="accept one connection and receive")
    add(lis, RECEIVE)
    con = modes.add_parser("connect", parents=[common],
                           help="connect and send messages")
    con.add_argument("addr", help="the listener's IPv6 address")
    add(con, SEND + CONNECT)
    con.add_argument("--ignore-rwnd", action="store_true",
                     help="send past the peer's window (to be NACKed)")
    peer = modes.add_parser("peer", parents=[common],
                            help="no handshake: a queue pair set up out of "
                            "band; send --sizes, receive --expect")
    peer.add_argument("addr", help="the peer's IPv6 address")
    for name, text in (("--qpn", "our QPN, which the peer sends to"),
                       ("--peer-qpn", "the peer's QPN"),
                       ("--isn", "the first PSN we send"),
                       ("--peer-isn", "the first PSN the peer sends")):
        peer.add_argument(name, type=int, required=True, help=text)
    add(peer, RECEIVE + SEND + PEER, sizes=[])
    peer.add_argument("--ignore-rwnd", action="store_true",
                      help="send past the peer's window (to be NACKed)")
    return p


def setup(argv, tap=None, wire=None):
    """The arguments, Wire (unless given), messages and Endpoint that
    command line ARGV asks for; TAP as Wire's."""
    a = parser().parse_args(argv)
    for k in ("drop", "nack_trimmed", "nack_nobuf", "sizes", "send_trimmed",
              "send_lost"):
        setattr(a, k, getattr(a, k, []))
    for k, v in (("isn", None), ("qpn", None), ("ignore_rwnd", False),
                 ("expect", 0), ("peer_qpn", 0), ("peer_isn", 0),
                 ("peer_rwnd", RWND)):
        setattr(a, k, getattr(a, k, v))
    a.peer_udp_port = a.peer_udp_port or a.udp_port
    if wire is None and a.tun:
        wire = TunWire(a.tun, a.bind, a.udp_port, tap, a.verbose)
    wire = wire or Wire(a.bind, a.udp_port, tap, a.verbose)
    msgs = make_messages(a.sizes, a.seed) if a.mode != "listen" else []
    return a, wire, msgs, Endpoint(wire, a, msgs)


def main(argv=None):
    """Run as the command line ARGV says; returns the exit status."""
    a, wire, msgs, ep = setup(argv)
    signal.signal(signal.SIGTERM, lambda *_: STOP.append(1))
    if a.ready:
        with open(a.ready, "w", encoding="utf-8"):
            pass
    ok = run(ep, a.timeout, a.linger)
    sent = summary(msgs)
    if a.mode == "peer":
        for what, shown in (("tx", sent), ("rx", ep.delivered)):
            for m in shown:
                print(what, m["msn"], m["len"], m["sha256"])
    else:
        shown = sent if a.mode == "connect" else ep.delivered
        for m in shown:
            print(m["msn"], m["len"], m["sha256"])
    stats = dict(sorted(wire.stats.items()))
    print("mrc10_peer %s: %s, %d messages sent, %d delivered, %s%s" % (
        a.mode, "done" if ok else "FAILED (%s)" % ep.state, len(sent),
        len(ep.delivered), json.dumps(stats), " nonconforming: %s" %
        dict(ep.nonconf) if ep.nonconf else ""), file=sys.stderr)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"mode": a.mode, "ok": ok,
                       "messages": sent if a.mode == "connect" else
                       ep.delivered, "sent": sent, "delivered": ep.delivered,
                       "stats": stats, "nonconforming": dict(ep.nonconf)},
                      f, indent=1)
    wire.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
