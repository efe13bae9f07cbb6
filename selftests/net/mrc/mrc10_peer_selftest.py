#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of mrc10_peer.py, the user-space MRC 1.0 endpoint, on the host.

Five transfers over ::1, each asserting that every message arrives
byte-identical (sha256) and that every packet either side sent decodes
with mrc10.py, with the header stack, the sizes and the values
Documentation/networking/mrc-1.0-mapping.rst gives (R_Key the sender's
QPN), and a good ICRC (but for the packets sent trimmed on purpose):

1. Listener and connector as threads of this process, the AF_MRC
   extension on. The listener drops packet 20 on its first two arrivals
   (so that it holds packets more than 64 PSNs past the hole, and the
   RTO must repair it), packet 3 once and the last packet (a tail loss),
   and NACKs one packet TRIMMED and one NO_PKT_BUFFER. A copy of packet 3
   with a payload bit flipped follows the first: only the ICRC check
   keeps it out of the message. The connector's initial PSN makes the
   PSNs wrap through 0.
2. The same, smaller, without the extension (--no-xack).
3. Two processes, through the command line.
4. No handshake (peer mode): two queue pairs set up from their QPNs and
   initial PSNs, both near the 2^24 wrap, sending to each other at once;
   each drops some of what it receives and NACKs one packet, one TRIMMED
   and the other NO_PKT_BUFFER, and sends one packet trimmed (the other
   NACKs it TRIMMED); one leaves a packet out (a SACK hole). No
   connection message goes on the wire.
5. The same through the command line, in two processes.

The counts of SACK holes, NACKs and timeouts repaired must each be above
0, and the checker is shown to catch a bad packet, so the test can fail.
"""
import os
import socket
import subprocess
import sys
import threading

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

import mrc10
import mrc10_peer
from mrc10 import (BTH, METH, TSETH, RETH, ImmDt, SETH, CCState, NETH, ERTH,
                   XAck, XConn)

HERE = os.path.dirname(os.path.abspath(__file__))
PSN_MOD = 1 << 24
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def stack_of(opcode, x):
    """The layers the mapping puts after BTH, with x the SACK's x bit."""
    if opcode in mrc10.WRITES:
        return [METH, TSETH, RETH] + ([ImmDt] if opcode in mrc10_peer.IMM
                                      else [])
    return {mrc10.RELIABILITY_SACK: [SETH, CCState] + ([XAck] if x else []),
            mrc10.RELIABILITY_NACK: [NETH],
            mrc10.ENDPOINT_REQUEST: [ERTH, XConn]}.get(opcode, [None])


def check_packet(rec, xack, seen, qpns=None):
    """One datagram as sent, decoded from its bytes: returns the problems
    found, and notes in SEEN what it shows. QPNS maps each QPN to that of
    its peer, which sends to it (its R_Key)."""
    src, sport, dst, dport, data = rec
    bad = []
    mrc10.bind(dport)
    if data[0] in mrc10.WRITES and len(data) == mrc10_peer.TRIM_LEN:
        # Sent trimmed on purpose: the headers up to RETH, no ICRC.
        seen["trimmed"] += 1
        return []
    ip = IPv6(bytes(IPv6(src=src, dst=dst) / UDP(sport=sport, dport=dport) /
                    Raw(data)))
    if not ip.haslayer(BTH) or ip[BTH].opcode not in mrc10.OPCODES:
        return ["not an MRC 1.0 packet: %s" % data[:16].hex()]
    bth = ip[BTH]
    op = bth.opcode
    if not mrc10.icrc_ok(ip):
        bad.append("bad ICRC")
    x = ip.haslayer(SETH) and ip[SETH].x
    layers = stack_of(op, x)
    for cls in layers:
        if cls is None or not ip.haslayer(cls):
            bad.append("no %s" % (cls and cls.__name__))
    if bad:
        return ["0x%02x: %s" % (op, b) for b in bad]
    hlen = 12 + sum(len(cls()) for cls in layers)
    body = len(data) - hlen - mrc10.ICRC_LEN
    want = [(bth.pkey, 0xFFFF, "P_Key"), (bth.se | bth.m | bth.tver, 0,
                                           "SE, M, TVer"),
            (bth.resv8a, 0, "BTH byte 4")]
    if op in mrc10.WRITES:
        seen["psns"].add(bth.psn)
        seen["rtx"] += bth.rtx
        want += [(bth.ts, 1, "TS"), (body % 4, 0, "padded length"),
                 (ip[METH].rqmsn, ip[METH].msn, "RQMSN"),
                 (ip[RETH].rkey, (qpns or {}).get(bth.dqpn), "R_Key"),
                 ((ip[TSETH].tsr, ip[TSETH].ftype), (1, 1), "TSR, ftype"),
                 (ip[RETH].va + body - bth.padcnt <= ip[RETH].dmalen, True,
                  "VA + payload within the DMA length")]
        if op in mrc10_peer.IMM:
            want.append((ip[ImmDt].imm, ip[RETH].dmalen, "ImmDt"))
    elif op == mrc10.RELIABILITY_SACK:
        s = ip[SETH]
        seen["sack_offsets"].add(s.sack_offset)
        if x:
            seen["xack_flags"] |= ip[XAck].flags
        want += [(body, 0, "SACK length"), (bth.psn, s.cack_psn, "BTH.PSN"),
                 (x, int(xack), "x bit"), ((s.cc_type, s.cc_fl), (0, 0), "cc"),
                 (s.mpr >= 1, True, "MPR"),
                 ((s.sack_offset - 1) % 64, 0, "sack_offset")]
    elif op == mrc10.RELIABILITY_NACK:
        n = ip[NETH]
        seen["nack_reasons"].add(n.reason)
        want += [(body, 0, "NACK length"), (bth.psn, n.nack_psn, "BTH.PSN"),
                 (n.cc_type, 2, "cc_type"), (n.reason in (1, 7), True,
                                             "reason")]
    elif op == mrc10.ENDPOINT_REQUEST:
        seen["xconn"].add(ip[ERTH].vendor)
        want += [(body, 0, "xconn length"), (bth.dqpn, 2, "DestQP"),
                 (ip[ERTH].op, mrc10.EP_AFMRC, "ERTH op"),
                 (bool(ip[XConn].flags & mrc10.XCONN_XACK), xack, "flags")]
    else:
        bad.append("an opcode this peer does not send")
    if op != mrc10.ENDPOINT_REQUEST and bth.dqpn < 3:
        bad.append("DestQP %d" % bth.dqpn)
    bad += ["%s is %r, not %r" % (what, got, exp)
            for got, exp, what in want if got != exp]
    return ["0x%02x psn %d: %s" % (op, bth.psn, b) for b in bad]


def new_seen():
    return {"psns": set(), "rtx": 0, "sack_offsets": set(), "xack_flags": 0,
            "nack_reasons": set(), "xconn": set(), "trimmed": 0}


def check_wire(name, records, xack, qpns):
    seen = new_seen()
    for rec in records:
        for problem in check_packet(rec, xack, seen, qpns):
            check(False, "%s: %s" % (name, problem))
    return seen


def check_clean(name, eps):
    """No nonconforming field and none of the counters of trouble."""
    for ep in eps:
        check(not ep.nonconf, "%s: nonconforming: %s" % (name, ep.nonconf))
        for k in ("short", "malformed", "bad_dpdcid", "unknown_qp",
                  "bad_fin", "timeout", "bad_pad", "nack_ignored",
                  "bad_opcode", "icrc_errors"):
            check(not ep.stats[k], "%s: %s %d" % (name, k, ep.stats[k]))


def transfer(name, sizes, drop, trimmed, nobuf, xack, isn, corrupt=None):
    """A listener thread and a connector; returns both endpoints, what went
    on the wire, and whether each finished."""
    records = []
    lw = mrc10_peer.Wire("::1", 0, lambda *r: records.append(r))
    cw = mrc10_peer.Wire("::1", 0)
    state = {"corrupted": False}

    def tap(src, sport, dst, dport, data):
        records.append((src, sport, dst, dport, data))
        if corrupt is None or state["corrupted"] or \
                data[0] not in mrc10.WRITES or \
                BTH(data).psn != (isn + corrupt) % PSN_MOD:
            return
        # The same packet again, a payload bit flipped: only its ICRC
        # tells it from the genuine one.
        bad = bytearray(data)
        bad[12 + mrc10.HDR_LEN[data[0]] + 4] ^= 0x10
        cw.sock.sendto(bytes(bad), (dst, dport))
        state["corrupted"] = True
    cw.tap = tap
    common = ["--bind", "::1", "--timeout", "60",
              "--linger", "0.3"] + (["--no-xack"] if not xack else [])
    lis = ["listen", "--udp-port", str(lw.port), "--peer-udp-port",
           str(cw.port), "--drop", ",".join(map(str, drop)),
           "--nack-trimmed", ",".join(map(str, trimmed)),
           "--nack-nobuf", ",".join(map(str, nobuf))] + common
    con = ["connect", "::1", "--udp-port", str(cw.port), "--peer-udp-port",
           str(lw.port), "--sizes", ",".join(map(str, sizes)), "--seed", "7",
           "--isn", str(isn)] + common
    _, _, _, lep = mrc10_peer.setup(lis, wire=lw)
    ok = {}
    thread = threading.Thread(
        target=lambda: ok.update(listener=mrc10_peer.run(lep, 60, 0.3)))
    thread.start()
    _, _, msgs, cep = mrc10_peer.setup(con, wire=cw)
    ok["connector"] = mrc10_peer.run(cep, 60, 0.3)
    thread.join()
    for w in (lw, cw):
        w.sock.close()
    check(ok == {"listener": True, "connector": True},
          "%s: finished: %s (%s, %s)" % (name, ok, lep.state, cep.state))
    check(lep.delivered == mrc10_peer.summary(msgs),
          "%s: delivered %s, sent %s" % (name, lep.delivered[:3],
                                         mrc10_peer.summary(msgs)[:3]))
    check_clean(name, (cep,))
    lep.stats["icrc_errors"] -= corrupt is not None
    check_clean(name, (lep,))
    lep.stats["icrc_errors"] += corrupt is not None
    return lep, cep, check_wire(name, records, xack,
                                {lep.qpn: cep.qpn, cep.qpn: lep.qpn})


def scenario_threads():
    sizes = [0, 1, 3, 4, 1187, 1188, 1189, 5000, 150000, 2, 70000]
    last = sum(max(1, -(-n // mrc10_peer.MSS)) for n in sizes) - 1
    isn = PSN_MOD - 100
    lep, cep, seen = transfer("extension", sizes, [3, 20, 20, last], [5],
                              [9], True, isn, corrupt=3)
    ls, cs = lep.stats, cep.stats
    check(ls["icrc_errors"] == 1, "icrc_errors %d, not 1" % ls["icrc_errors"])
    check(ls["dropped_injected"] == 4, "dropped %d" % ls["dropped_injected"])
    check((ls["nack_01"], ls["nack_07"]) == (1, 1), "NACKs sent: %d, %d"
          % (ls["nack_01"], ls["nack_07"]))
    check(cs["rtx_sack"] > 0, "no packet sent again for a SACK hole")
    check(cs["rtx_nack"] == 2, "sent again for NACKs: %d" % cs["rtx_nack"])
    check(cs["rtx_rto"] >= 2, "timeouts repaired: %d" % cs["rtx_rto"])
    check(cs["rx_dc"] > last, "SACKs read: %d" % cs["rx_dc"])
    check(max(seen["sack_offsets"]) > 64, "no SACK of a block past 64: %s"
          % sorted(seen["sack_offsets"]))
    check(seen["nack_reasons"] == {1, 7}, "NACK reasons %s"
          % seen["nack_reasons"])
    check(seen["rtx"] >= 5, "RTX set on %d packets" % seen["rtx"])
    check(seen["xconn"] == {mrc10.X_SYN, mrc10.X_SYNACK, mrc10.X_FIN},
          "connection messages %s" % seen["xconn"])
    check(seen["xack_flags"] & mrc10.XACK_FIN, "no FIN-ACK (xack FIN)")
    check({PSN_MOD - 1, 0} <= seen["psns"], "the PSNs did not wrap")
    return cs


def scenario_no_xack():
    lep, cep, seen = transfer("no extension", [5000, 1, 3000], [1], [2], [],
                              False, 5)
    check(cep.stats["rtx_sack"] + cep.stats["rtx_nack"] >= 2,
          "no extension: nothing sent again")
    check(not seen["xack_flags"], "no extension: xack sent")


def free_port():
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
        s.bind(("::1", 0))
        return s.getsockname()[1]


def scenario_processes():
    pl, pc = free_port(), free_port()
    peer = [sys.executable, os.path.join(HERE, "mrc10_peer.py")]
    common = ["--bind", "::1", "--timeout", "60", "--linger", "0.3"]
    lis = subprocess.Popen(peer + ["listen", "--udp-port", str(pl),
                                   "--peer-udp-port", str(pc), "--drop", "2",
                                   "--nack-nobuf", "4"] + common,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    con = subprocess.run(peer + ["connect", "::1", "--udp-port", str(pc),
                                 "--peer-udp-port", str(pl), "--sizes",
                                 "10,20000,1"] + common,
                         capture_output=True, text=True, check=False)
    lout, lerr = lis.communicate(timeout=90)
    check(lis.returncode == 0 and con.returncode == 0,
          "processes: exit %s, %s: %s %s" % (lis.returncode, con.returncode,
                                             lerr[-300:], con.stderr[-300:]))
    check(lout == con.stdout and len(lout.splitlines()) == 3,
          "processes: listener printed %r, connector %r" % (lout, con.stdout))


def scenario_no_handshake():
    """Two peers, no handshake, each sending to the other at once."""
    records = []
    aw = mrc10_peer.Wire("::1", 0, lambda *r: records.append(r))
    bw = mrc10_peer.Wire("::1", 0, lambda *r: records.append(r))
    qa, qb, ia, ib = 0x123456, 0xABCDE, PSN_MOD - 30, PSN_MOD - 5
    sa, sb = [1, 1000, 9000, 100000, 0], [100000, 1, 3000]
    common = ["--timeout", "60", "--linger", "0.3"]

    def args(w, other, qpn, pqpn, isn, pisn, sizes, expect, extra):
        return ["peer", "::1", "--udp-port", str(w.port), "--peer-udp-port",
                str(other.port), "--qpn", str(qpn), "--peer-qpn", str(pqpn),
                "--isn", str(isn), "--peer-isn", str(pisn), "--sizes",
                ",".join(map(str, sizes)), "--expect", str(expect)] + \
            extra + common
    _, _, ma, aep = mrc10_peer.setup(
        args(aw, bw, qa, qb, ia, ib, sa, len(sb),
             ["--seed", "3", "--drop", "3,30,70", "--nack-nobuf", "10",
              "--send-trimmed", "8"]), wire=aw)
    _, _, mb, bep = mrc10_peer.setup(
        args(bw, aw, qb, qa, ib, ia, sb, len(sa),
             ["--seed", "4", "--drop", "2", "--nack-trimmed", "5",
              "--send-trimmed", "1", "--send-lost", "20"]), wire=bw)
    ok = {}
    thread = threading.Thread(
        target=lambda: ok.update(b=mrc10_peer.run(bep, 60, 0.3)))
    thread.start()
    ok["a"] = mrc10_peer.run(aep, 60, 0.3)
    thread.join()
    for w in (aw, bw):
        w.sock.close()
    name = "no handshake"
    check(ok == {"a": True, "b": True}, "%s: finished: %s" % (name, ok))
    check(aep.delivered == mrc10_peer.summary(mb) and
          bep.delivered == mrc10_peer.summary(ma),
          "%s: delivered %s and %s" % (name, aep.delivered[:2],
                                       bep.delivered[:2]))
    check_clean(name, (aep, bep))
    seen = check_wire(name, records, True, {qa: qb, qb: qa})
    a, b = aep.stats, bep.stats
    check((a["rx_nack_01"], a["rx_nack_07"], b["rx_nack_01"],
           b["rx_nack_07"]) == (2, 0, 1, 1), "%s: NACKs received: %s, %s"
          % (name, a, b))
    check((a["rtx_nack"], b["rtx_nack"]) == (2, 2), "%s: sent again for "
          "NACKs: %d, %d" % (name, a["rtx_nack"], b["rtx_nack"]))
    check(b["rtx_sack"] + b["rtx_rto"] >= 3 and a["rtx_sack"] +
          a["rtx_rto"] >= 1, "%s: drops not repaired by SACK or RTO" % name)
    check(b["lost_injected"] == 1 and b["rtx_sack"] >= 1,
          "%s: a packet not sent, not sent again for its SACK hole" % name)
    check(seen["trimmed"] == 2, "%s: %d sent trimmed" % (name,
                                                         seen["trimmed"]))
    check(not seen["xconn"], "%s: connection messages %s" % (name,
                                                            seen["xconn"]))
    check({PSN_MOD - 1, 0} <= seen["psns"], "%s: the PSNs did not wrap"
          % name)


def scenario_peer_processes():
    pa, pb = free_port(), free_port()
    peer = [sys.executable, os.path.join(HERE, "mrc10_peer.py"), "peer",
            "::1", "--bind", "::1", "--timeout", "60", "--linger", "0.3"]
    a = subprocess.Popen(peer + ["--udp-port", str(pa), "--peer-udp-port",
                                 str(pb), "--qpn", "3", "--peer-qpn", "4",
                                 "--isn", "0", "--peer-isn", "16777215",
                                 "--sizes", "10,20000", "--expect", "1",
                                 "--drop", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    b = subprocess.run(peer + ["--udp-port", str(pb), "--peer-udp-port",
                               str(pa), "--qpn", "4", "--peer-qpn", "3",
                               "--isn", "16777215", "--peer-isn", "0",
                               "--sizes", "5000", "--expect", "2",
                               "--nack-nobuf", "3"],
                       capture_output=True, text=True, check=False)
    aout, aerr = a.communicate(timeout=90)
    check(a.returncode == 0 and b.returncode == 0,
          "peer processes: exit %s, %s: %s %s" % (a.returncode, b.returncode,
                                                  aerr[-300:],
                                                  b.stderr[-300:]))

    def lines(out, what):
        return [x.split(" ", 1)[1] for x in out.splitlines()
                if x.startswith(what + " ")]
    check(lines(aout, "tx") == lines(b.stdout, "rx") and
          lines(b.stdout, "tx") == lines(aout, "rx") and
          len(lines(aout, "tx")) == 2 and len(lines(aout, "rx")) == 1,
          "peer processes: printed %r and %r" % (aout, b.stdout))


def check_checker():
    """The packet check fails a packet with a byte changed, and one a
    byte short."""
    cw = mrc10_peer.Wire("::1", 0)
    rec = []
    cw.tap = lambda *r: rec.append(r)
    cw.send("::1", 9, BTH(opcode=mrc10.RELIABILITY_NACK, dqpn=7, psn=1) /
            NETH(reason=1, nack_psn=1, cc_type=2))
    cw.sock.close()
    src, sport, dst, dport, data = rec[0]
    check(not check_packet(rec[0], True, new_seen()), "a good NACK fails")
    flipped = data[:20] + bytes([data[20] ^ 1]) + data[21:]
    check(check_packet((src, sport, dst, dport, flipped), True, new_seen()),
          "a NACK with a byte changed passes")
    short = data[:-5] + data[-4:]
    check(check_packet((src, sport, dst, dport, short), True, new_seen()),
          "a NACK a byte short passes")


def main():
    check_checker()
    cs = scenario_threads()
    scenario_no_xack()
    scenario_processes()
    scenario_no_handshake()
    scenario_peer_processes()
    for f in failures:
        print("mrc10_peer_selftest: " + f)
    if failures:
        sys.exit(1)
    print("mrc10_peer_selftest: 5 transfers byte-identical over ::1, every "
          "packet decoded with a good ICRC; SACK holes %d, NACKs %d, "
          "timeouts %d repaired" % (cs["rtx_sack"], cs["rtx_nack"],
                                    cs["rtx_rto"]))


if __name__ == "__main__":
    main()
