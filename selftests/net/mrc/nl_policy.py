#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The "mrc" genetlink family against its YAML spec, over raw netlink.

1. The kernel's policy (CTRL_CMD_GETPOLICY) matches
   Documentation/netlink/specs/mrc.yaml: every attribute a request may
   carry has the spec's type and range, output-only attributes are
   rejected, and there is nothing the spec does not name.
2. Garbage attributes from a raw client are rejected and change nothing.

Prints KTAP. Needs the module loaded and root (for the garbage part).
"""

import errno
import os
import socket
import struct
import sys

import yaml

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_CMD_GETPOLICY = 10
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_POLICY = 8
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000

TYPE_NAMES = {1: "flag", 2: "u8", 3: "u16", 4: "u32", 5: "u64", 10: "binary",
              11: "string", 12: "nul-string", 13: "nest", 14: "nest-array"}
PT_TYPE, PT_MIN_U, PT_MAX_U, PT_MIN_LEN, PT_MAX_LEN, PT_IDX = 1, 4, 5, 6, 7, 8
INT_MAX = {"u8": 0xff, "u16": 0xffff, "u32": 0xffffffff, "u64": 2**64 - 1}

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "../../../Documentation/netlink/specs/mrc.yaml")


def attrs(data):
    out = []
    while len(data) >= 4:
        alen, atype = struct.unpack_from("HH", data)
        if alen < 4:
            break
        out.append((atype & 0x3fff, data[4:alen]))
        data = data[(alen + 3) & ~3:]
    return out


def attr(atype, payload):
    pad = (4 - len(payload) % 4) % 4
    return struct.pack("HH", 4 + len(payload), atype) + payload + b"\0" * pad


def nest(atype, payload):
    return attr(atype | NLA_F_NESTED, payload)


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.setsockopt(270, 11, 1)  # SOL_NETLINK, NETLINK_EXT_ACK
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, payload=b"", flags=NLM_F_ACK, version=1):
        """Send; return (errno, [attribute lists of each reply])."""
        self.seq += 1
        msg = struct.pack("BBH", cmd, version, 0) + payload
        self.sock.send(struct.pack("IHHII", 16 + len(msg), family,
                                   NLM_F_REQUEST | flags, self.seq, 0) + msg)
        replies = []
        while True:
            data = self.sock.recv(1 << 20)
            while len(data) >= 16:
                mlen, mtype, _, _, _ = struct.unpack_from("IHHII", data)
                body = data[16:mlen]
                data = data[(mlen + 3) & ~3:]
                if mtype == NLMSG_ERROR:
                    return -struct.unpack_from("i", body)[0], replies
                if mtype == NLMSG_DONE:
                    return 0, replies
                replies.append(attrs(body[4:]))
                if not flags & NLM_F_DUMP and not flags & NLM_F_ACK:
                    return 0, replies

    def family(self, name):
        err, replies = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                    attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if err:
            return None
        for atype, data in replies[0]:
            if atype == CTRL_ATTR_FAMILY_ID:
                return struct.unpack("H", data[:2])[0]
        return None


def kernel_policies(genl, fam):
    err, replies = genl.request(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                                attr(CTRL_ATTR_FAMILY_ID, struct.pack("H", fam)),
                                flags=NLM_F_DUMP)
    if err:
        raise OSError(err, "CTRL_CMD_GETPOLICY failed")
    pol = {}
    for reply in replies:
        for atype, data in reply:
            if atype != CTRL_ATTR_POLICY:
                continue
            for idx, adata in attrs(data):
                for anum, props in attrs(adata):
                    p = {}
                    for ptype, pdata in attrs(props):
                        p[ptype] = int.from_bytes(pdata, "little")
                    pol.setdefault(idx, {})[anum] = p
    return pol


def spec_sets(spec):
    """attribute sets: name -> {attribute name: (value, attribute)}"""
    sets = {}
    for aset in spec["attribute-sets"]:
        base = aset.get("subset-of")
        entries, value = {}, 1
        for a in aset["attributes"]:
            if base:
                full = dict(next(x for x in sets[base].values() if x[1]["name"] == a["name"])[1])
                full.update(a)
                entries[a["name"]] = (sets[base][a["name"]][0], full)
                continue
            value = a.get("value", value)
            entries[a["name"]] = (value, a)
            value += 1
        sets[aset["name"]] = entries
    return sets


def requested(spec, sets, set_name):
    """Attributes of a set that some request may carry."""
    if set_name == spec["operations"]["list"][0]["attribute-set"]:
        names = set()
        for op in spec["operations"]["list"]:
            for kind in ("do", "dump"):
                req = (op.get(kind) or {}).get("request") or {}
                names.update(req.get("attributes", []))
        return names
    subset = any(s["name"] == set_name and "subset-of" in s
                 for s in spec["attribute-sets"])
    names = set()
    for n, (_, a) in sets[set_name].items():
        doc = a.get("doc", "")
        # "Only inside X": valid in the subset X, not in the full set.
        if doc.startswith("Output only") or (doc.startswith("Only inside") and not subset):
            continue
        names.add(n)
    return names


def compare(spec, sets, pol, idx, set_name, seen, problems):
    if (idx, set_name) in seen:
        return
    seen.add((idx, set_name))
    want = requested(spec, sets, set_name)
    have = pol.get(idx, {})
    byval = {v: (n, a) for n, (v, a) in sets[set_name].items()}
    for anum in have:
        if anum not in byval or byval[anum][0] not in want:
            problems.append(f"{set_name}: kernel accepts attribute {anum}, "
                            "which the spec does not allow in a request")
    for name in want:
        value, a = sets[set_name][name]
        if value not in have:
            problems.append(f"{set_name}.{name}: in a request per spec, rejected by the kernel")
            continue
        k = have[value]
        ktype = TYPE_NAMES.get(k.get(PT_TYPE), k.get(PT_TYPE))
        if ktype != a["type"]:
            problems.append(f"{set_name}.{name}: spec type {a['type']}, kernel {ktype}")
            continue
        checks = a.get("checks", {})
        if a["type"] in INT_MAX:
            lo, hi = checks.get("min", 0), checks.get("max", INT_MAX[a["type"]])
            if (k.get(PT_MIN_U), k.get(PT_MAX_U)) != (lo, hi):
                problems.append(f"{set_name}.{name}: spec range {lo}..{hi}, "
                                f"kernel {k.get(PT_MIN_U)}..{k.get(PT_MAX_U)}")
        elif a["type"] == "binary" and "exact-len" in checks:
            n = checks["exact-len"]
            if (k.get(PT_MIN_LEN), k.get(PT_MAX_LEN)) != (n, n):
                problems.append(f"{set_name}.{name}: spec length {n}, kernel "
                                f"{k.get(PT_MIN_LEN)}..{k.get(PT_MAX_LEN)}")
        elif a["type"] == "nest":
            if PT_IDX not in k:
                problems.append(f"{set_name}.{name}: kernel nest has no policy")
            else:
                compare(spec, sets, pol, k[PT_IDX], a["nested-attributes"], seen, problems)


def in6(text):
    return socket.inet_pton(socket.AF_INET6, text)


def nr_sets(genl, fam):
    err, replies = genl.request(fam, 3, flags=NLM_F_DUMP)  # path-get
    return len({bytes(dict(r).get(1, b"")) for r in replies}) if not err else -1


def main():
    results = []
    spec = yaml.safe_load(open(SPEC))
    genl = Genl()
    fam = genl.family(spec["name"])
    print("TAP version 13")
    print("1..2")
    if fam is None:
        print("# family mrc not found: is mrc.ko loaded?")
        print("not ok 1 kernel policy matches the YAML spec")
        print("not ok 2 garbage attributes are rejected and change nothing")
        print("# Totals: pass:0 fail:2 xfail:0 xpass:0 skip:0 error:0")
        return 1

    problems = []
    sets = spec_sets(spec)
    pol = kernel_policies(genl, fam)
    compare(spec, sets, pol, 0, spec["operations"]["list"][0]["attribute-set"],
            set(), problems)
    for p in problems:
        print("# " + p)
    results.append(not problems)
    print(("ok" if not problems else "not ok") + " 1 kernel policy matches the YAML spec")

    ops = {op["name"]: i + 1 for i, op in enumerate(spec["operations"]["list"])}
    add = ops["path-add"]
    prefix = attr(1, in6("2001:db8:77::")) + attr(2, b"\x40")
    path = lambda body: nest(4, body)
    seg = lambda a: attr(3, in6(a))
    garbage = [
        ("prefix of 15 bytes", attr(1, in6("2001:db8::")[:15]) + attr(2, b"\x40") + path(b"")),
        ("prefix length 129", attr(1, in6("2001:db8::")) + attr(2, b"\x81") + path(b"")),
        ("unknown top-level attribute", prefix + path(b"") + attr(200, b"xxxx")),
        ("output-only attribute in a request", prefix + path(b"") + attr(11, struct.pack("I", 1))),
        ("path id over 65535", prefix + path(attr(1, struct.pack("I", 70000)))),
        ("unknown attribute in a path", prefix + path(attr(99, b"zz"))),
        ("segment of 4 bytes", prefix + path(nest(2, attr(3, b"abcd")))),
        ("nine segments", prefix + path(nest(2, b"".join(seg(f"fc00::{i + 1}") for i in range(9))))),
        ("multicast segment", prefix + path(nest(2, seg("ff02::1")))),
        ("truncated attribute header", prefix + b"\x08\x00"),
        ("state in a path", prefix + path(attr(6, b"\x01"))),
        ("no path at all", prefix),
        ("host bits in the prefix", attr(1, in6("2001:db8:77::1")) + attr(2, b"\x40") + path(b"")),
    ]
    ok = True
    before = nr_sets(genl, fam)
    for what, payload in garbage:
        err, _ = genl.request(fam, add, payload)
        if err == 0:
            print(f"# {what}: accepted")
            ok = False
        else:
            print(f"# {what}: {errno.errorcode.get(err, err)}")
    after = nr_sets(genl, fam)
    if before != after:
        print(f"# path sets {before} -> {after}: something was added")
        ok = False
    results.append(ok)
    print(("ok" if ok else "not ok") + " 2 garbage attributes are rejected and change nothing")
    print(f"# Totals: pass:{results.count(True)} fail:{results.count(False)} "
          "xfail:0 xpass:0 skip:0 error:0")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
