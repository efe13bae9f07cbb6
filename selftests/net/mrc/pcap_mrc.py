#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a pcap file and print its IPv6 packets as JSON (standard library only).

pcap_mrc.py [--udp-port PORT] [--src ADDR] [--dst ADDR] [--srh-only]
            [--summary] FILE

One JSON array on stdout, one object per IPv6 packet (other frames are
skipped):

  n          index of the frame in the file, from 0
  time       capture time, seconds (float)
  len        length on the wire; caplen when the frame was cut short
  src, dst   IPv6 source and destination (dst as captured: with an SRH,
             the segment the packet was heading for at the capture point)
  hlim, flowlabel, dscp, ecn
  srh        null, or {"segments_left", "last_entry", "tag", "flags",
             "segments"}: "segments" in the order they are visited (the
             SRH stores them reversed: its segments[0] is the final
             destination, so here it is the last element)
  nh         the upper-layer protocol number after all extension headers,
             and "proto" its name (udp, tcp, icmpv6, or the number)
  sport, dport, udp_len   for UDP
  mrc        for UDP with a payload: {"version": byte 0, "type": byte 1}
  payload    for UDP: the first 16 bytes after the UDP header, in hex
  icmp_type, icmp_code    for ICMPv6
  truncated  true when the capture ended inside a header

--summary prints instead one object per (segment list, UDP source port,
flow label), most packets first:
  {"segs": [...], "sport": N or null, "flowlabel": N, "count": N}
with the segment list empty for packets without an SRH.

Filters (they combine): --udp-port PORT keeps UDP packets whose source or
destination port is PORT; --src and --dst keep packets with that source or
(final, for SRH packets) destination address; --srh-only keeps packets
with a segment routing header.

Link types: Ethernet (DLT_EN10MB, with 802.1Q tags), Linux cooked
(DLT_LINUX_SLL and SLL2), raw IP (DLT_RAW, DLT_IPV6). Classic pcap only,
microsecond or nanosecond, either byte order; not pcapng.
"""

import argparse
import ipaddress
import json
import struct
import sys

DLT_EN10MB = 1
DLT_RAW = 101
DLT_LINUX_SLL = 113
DLT_IPV6 = 229
DLT_LINUX_SLL2 = 276
DLT_RAW_ALT = 12

ETH_P_IPV6 = 0x86DD
VLAN_TYPES = (0x8100, 0x88A8, 0x9100)

NH_HOPOPTS = 0
NH_ROUTING = 43
NH_FRAGMENT = 44
NH_AH = 51
NH_DSTOPTS = 60
NH_NONE = 59
IPPROTO_TCP = 6
IPPROTO_UDP = 17
IPPROTO_ICMPV6 = 58
SRH_TYPE = 4

PROTO_NAMES = {IPPROTO_TCP: "tcp", IPPROTO_UDP: "udp", IPPROTO_ICMPV6: "icmpv6"}


class PcapError(Exception):
    pass


def read_pcap(f):
    """Yield (linktype, time, wirelen, data) for each frame of a classic pcap."""
    hdr = f.read(24)
    if len(hdr) < 24:
        raise PcapError("not a pcap file: too short")
    magic = hdr[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        endian, nano = "<", False
    elif magic == b"\xa1\xb2\xc3\xd4":
        endian, nano = ">", False
    elif magic == b"\x4d\x3c\xb2\xa1":
        endian, nano = "<", True
    elif magic == b"\xa1\xb2\x3c\x4d":
        endian, nano = ">", True
    elif magic == b"\x0a\x0d\x0d\x0a":
        raise PcapError("pcapng is not supported: capture with tcpdump -w (classic pcap)")
    else:
        raise PcapError("not a pcap file: magic %s" % magic.hex())
    linktype = struct.unpack(endian + "I", hdr[20:24])[0] & 0x0FFFFFFF
    rec = struct.Struct(endian + "IIII")
    div = 1e9 if nano else 1e6
    while True:
        rh = f.read(16)
        if len(rh) < 16:
            return
        sec, frac, incl, orig = rec.unpack(rh)
        data = f.read(incl)
        if len(data) < incl:
            # A capture killed mid-write: the last record is partial.
            return
        yield linktype, sec + frac / div, orig, data


def l3_offset(linktype, data):
    """Offset of the IPv6 header in a frame, or None if it holds no IPv6."""
    if linktype == DLT_EN10MB:
        off = 12
        if len(data) < off + 2:
            return None
        etype = struct.unpack_from("!H", data, off)[0]
        while etype in VLAN_TYPES:
            off += 4
            if len(data) < off + 2:
                return None
            etype = struct.unpack_from("!H", data, off)[0]
        return off + 2 if etype == ETH_P_IPV6 else None
    if linktype == DLT_LINUX_SLL:
        if len(data) < 16:
            return None
        return 16 if struct.unpack_from("!H", data, 14)[0] == ETH_P_IPV6 else None
    if linktype == DLT_LINUX_SLL2:
        if len(data) < 20:
            return None
        return 20 if struct.unpack_from("!H", data, 0)[0] == ETH_P_IPV6 else None
    if linktype in (DLT_RAW, DLT_RAW_ALT, DLT_IPV6):
        return 0 if data and data[0] >> 4 == 6 else None
    raise PcapError("unsupported link type %d" % linktype)


def addr(b):
    return str(ipaddress.IPv6Address(bytes(b)))


def parse_ipv6(data, off):
    """Decode the IPv6 packet at data[off:] into a dict, or None."""
    if len(data) < off + 40 or data[off] >> 4 != 6:
        return None
    vtcfl = struct.unpack_from("!I", data, off)[0]
    tclass = (vtcfl >> 20) & 0xFF
    pkt = {
        "src": addr(data[off + 8:off + 24]),
        "dst": addr(data[off + 24:off + 40]),
        "hlim": data[off + 7],
        "flowlabel": vtcfl & 0xFFFFF,
        "dscp": tclass >> 2,
        "ecn": tclass & 3,
        "srh": None,
    }
    nh = data[off + 6]
    p = off + 40
    truncated = False
    while nh in (NH_HOPOPTS, NH_ROUTING, NH_DSTOPTS, NH_FRAGMENT, NH_AH):
        if len(data) < p + 8:
            truncated = True
            break
        if nh == NH_FRAGMENT:
            hlen = 8
        elif nh == NH_AH:
            hlen = (data[p + 1] + 2) * 4
        else:
            hlen = (data[p + 1] + 1) * 8
        if nh == NH_ROUTING and data[p + 2] == SRH_TYPE:
            last_entry = data[p + 4]
            nseg = min(last_entry + 1, (hlen - 8) // 16)
            segs = []
            for i in range(nseg):
                s = p + 8 + 16 * i
                if len(data) < s + 16:
                    truncated = True
                    break
                segs.append(addr(data[s:s + 16]))
            pkt["srh"] = {
                "segments_left": data[p + 3],
                "last_entry": last_entry,
                "flags": data[p + 5],
                "tag": struct.unpack_from("!H", data, p + 6)[0],
                # The SRH lists the last segment first.
                "segments": segs[::-1],
            }
        nh = data[p]
        p += hlen
    pkt["nh"] = nh
    pkt["proto"] = PROTO_NAMES.get(nh, nh)
    if nh == IPPROTO_UDP and not truncated:
        if len(data) < p + 8:
            truncated = True
        else:
            sport, dport, ulen = struct.unpack_from("!HHH", data, p)
            pkt.update(sport=sport, dport=dport, udp_len=ulen)
            payload = data[p + 8:p + 24]
            pkt["payload"] = payload.hex()
            if len(payload) >= 2:
                pkt["mrc"] = {"version": payload[0], "type": payload[1]}
    elif nh == IPPROTO_ICMPV6 and not truncated:
        if len(data) < p + 2:
            truncated = True
        else:
            pkt.update(icmp_type=data[p], icmp_code=data[p + 1])
    if truncated:
        pkt["truncated"] = True
    return pkt


def final_dst(pkt):
    """The packet's final destination: the last segment when it has an SRH."""
    srh = pkt["srh"]
    if srh and srh["segments"]:
        return srh["segments"][-1]
    return pkt["dst"]


def frames(path):
    """Yield (n, time, wirelen, ipv6 bytes) for each frame of a classic
    pcap that holds an IPv6 packet; n counts every frame, from 0."""
    with open(path, "rb") as f:
        for n, (linktype, ts, wirelen, data) in enumerate(read_pcap(f)):
            off = l3_offset(linktype, data)
            if off is not None:
                yield n, ts, wirelen, data[off:]


def upper_layer(ip):
    """(protocol, offset, final destination bytes) of the IPv6 packet ip:
    the protocol after the extension headers and where its header starts,
    and the packet's final destination (the SRH's last segment, if it has
    one). The offset may be past what was captured."""
    nh, off, final = ip[6], 40, ip[24:40]
    while nh in (NH_HOPOPTS, NH_ROUTING, NH_DSTOPTS) and off + 8 <= len(ip):
        if nh == NH_ROUTING and ip[off + 2] == SRH_TYPE and off + 24 <= len(ip):
            final = ip[off + 8:off + 24]
        nh, off = ip[off], off + (ip[off + 1] + 1) * 8
    return nh, off, final


def packets(path):
    for n, ts, wirelen, ip in frames(path):
        pkt = parse_ipv6(ip, 0)
        if pkt is not None:
            yield dict(n=n, time=round(ts, 9), len=wirelen, **pkt)


def norm(a):
    return str(ipaddress.IPv6Address(a))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        prog="pcap_mrc.py", description="Print the IPv6 packets of a pcap file as JSON.")
    ap.add_argument("file")
    ap.add_argument("--udp-port", type=int, metavar="PORT",
                    help="only UDP packets from or to PORT")
    ap.add_argument("--src", metavar="ADDR", help="only packets from ADDR")
    ap.add_argument("--dst", metavar="ADDR",
                    help="only packets to ADDR (the final destination)")
    ap.add_argument("--srh-only", action="store_true",
                    help="only packets with a segment routing header")
    ap.add_argument("--summary", action="store_true",
                    help="count packets per (segment list, UDP source port, flow label)")
    return ap.parse_args(argv)


def summarize(pkts):
    """One entry per (segment list, UDP source port, flow label), most packets first."""
    counts = {}
    for pkt in pkts:
        segs = tuple(pkt["srh"]["segments"]) if pkt["srh"] else ()
        key = (segs, pkt.get("sport"), pkt["flowlabel"])
        counts[key] = counts.get(key, 0) + 1
    return [{"segs": list(k[0]), "sport": k[1], "flowlabel": k[2], "count": c}
            for k, c in sorted(counts.items(),
                               key=lambda kc: (-kc[1], kc[0][0], kc[0][1] or 0, kc[0][2]))]


def run(argv=None):
    """What the command line argv asks for, as a list; raises OSError or
    PcapError. For tests, which import this file rather than run it."""
    args = parse_args(argv)
    src = norm(args.src) if args.src else None
    dst = norm(args.dst) if args.dst else None
    out = []
    for pkt in packets(args.file):
        if args.udp_port is not None and (
                "sport" not in pkt or args.udp_port not in (pkt["sport"], pkt["dport"])):
            continue
        if src and pkt["src"] != src:
            continue
        if dst and final_dst(pkt) != dst:
            continue
        if args.srh_only and not pkt["srh"]:
            continue
        out.append(pkt)
    return summarize(out) if args.summary else out


def main():
    try:
        out = run()
    except (OSError, PcapError) as e:
        print("pcap_mrc.py: %s" % e, file=sys.stderr)
        return 1
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
