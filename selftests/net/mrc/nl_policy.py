#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The "mrc" genetlink family against its YAML spec, over raw netlink.

1. The kernel's policy (CTRL_CMD_GETPOLICY) matches
   Documentation/netlink/specs/mrc.yaml: every attribute a request may
   carry, nested ones too, has the spec's type and range, output-only
   attributes are rejected, and there is nothing the spec does not name.
2. The kernel's operations (CTRL_CMD_GETFAMILY) are the spec's: the same
   commands, each with do and dump as the spec has them, and admin-perm
   or uns-admin-perm.
3. Garbage attributes in path-add from a raw client are rejected and
   change nothing.
4. Garbage congestion-control settings in cc-set are rejected with the
   expected errno and an extack message, and change nothing.
5. Garbage probe requests are rejected with the expected errno and an
   extack message, and send no probe.

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
CTRL_ATTR_OPS = 6
CTRL_ATTR_POLICY = 8
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
GENL_ADMIN_PERM, GENL_CMD_CAP_DO, GENL_CMD_CAP_DUMP = 0x1, 0x2, 0x4
GENL_UNS_ADMIN_PERM = 0x10
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_MISS_TYPE = 1, 5
NLA_F_NESTED = 0x8000
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11

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
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0
        self.extack = {}

    def request(self, family, cmd, payload=b"", flags=NLM_F_ACK, version=1):
        """Send; return (errno, [attribute lists of each reply]). The
        extack attributes of the answer, by type, are left in self.extack."""
        self.seq += 1
        self.extack = {}
        msg = struct.pack("BBH", cmd, version, 0) + payload
        self.sock.send(struct.pack("IHHII", 16 + len(msg), family,
                                   NLM_F_REQUEST | flags, self.seq, 0) + msg)
        replies = []
        while True:
            data = self.sock.recv(1 << 20)
            while len(data) >= 16:
                mlen, mtype, mflags, _, _ = struct.unpack_from("IHHII", data)
                body = data[16:mlen]
                data = data[(mlen + 3) & ~3:]
                if mtype == NLMSG_ERROR:
                    # The error, the request's header (and all of it
                    # unless capped), then the extack attributes.
                    if mflags & NLM_F_ACK_TLVS:
                        off = 4 + (16 if mflags & NLM_F_CAPPED
                                   else struct.unpack_from("I", body, 4)[0])
                        self.extack = dict(attrs(body[off:]))
                    return -struct.unpack_from("i", body)[0], replies
                if mtype == NLMSG_DONE:
                    return 0, replies
                replies.append(attrs(body[4:]))
                if not flags & NLM_F_DUMP and not flags & NLM_F_ACK:
                    return 0, replies

    def extack_msg(self):
        msg = self.extack.get(NLMSGERR_ATTR_MSG, b"")
        return msg.rstrip(b"\0").decode(errors="replace")

    def family(self, name):
        """The family's id and its operations {command: flags}, or None."""
        err, replies = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                    attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if err:
            return None
        info = dict(replies[0])
        if CTRL_ATTR_FAMILY_ID not in info:
            return None
        ops = {}
        for _, op in attrs(info.get(CTRL_ATTR_OPS, b"")):
            o = {t: struct.unpack("I", d[:4])[0] for t, d in attrs(op)}
            ops[o[CTRL_ATTR_OP_ID]] = o.get(CTRL_ATTR_OP_FLAGS, 0)
        return struct.unpack("H", info[CTRL_ATTR_FAMILY_ID][:2])[0], ops


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


def reachable(spec, sets, set_name, out):
    """The set and every set its request attributes nest, recursively."""
    out.add(set_name)
    for name in requested(spec, sets, set_name):
        a = sets[set_name][name][1]
        if a["type"] == "nest" and a["nested-attributes"] not in out:
            reachable(spec, sets, a["nested-attributes"], out)
    return out


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


def spec_ops(spec):
    """operations: name -> (value, operation)"""
    ops, value = {}, 1
    for op in spec["operations"]["list"]:
        value = op.get("value", value)
        ops[op["name"]] = (value, op)
        value += 1
    return ops


def compare_ops(spec, kops, problems):
    """The kernel's commands, their do and dump, admin-perm and
    uns-admin-perm."""
    want = {}
    for name, (value, op) in spec_ops(spec).items():
        if "do" not in op and "dump" not in op:
            continue  # an event: no command
        flags = GENL_CMD_CAP_DO if "do" in op else 0
        flags |= GENL_CMD_CAP_DUMP if "dump" in op else 0
        flags |= GENL_ADMIN_PERM if "admin-perm" in op.get("flags", []) else 0
        flags |= (GENL_UNS_ADMIN_PERM if "uns-admin-perm" in op.get("flags", [])
                  else 0)
        want[value] = (name, flags)
    mask = (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO |
            GENL_CMD_CAP_DUMP)
    for cmd in sorted(set(want) | set(kops)):
        if cmd not in kops:
            problems.append(f"{want[cmd][0]} ({cmd}): in the spec, not in the kernel")
        elif cmd not in want:
            problems.append(f"command {cmd}: in the kernel, not in the spec")
        elif kops[cmd] & mask != want[cmd][1]:
            problems.append(f"{want[cmd][0]} ({cmd}): spec flags {want[cmd][1]:#x}, "
                            f"kernel {kops[cmd] & mask:#x}")


def in6(text):
    return socket.inet_pton(socket.AF_INET6, text)


def nr_sets(genl, fam):
    err, replies = genl.request(fam, 3, flags=NLM_F_DUMP)  # path-get
    return len({bytes(dict(r).get(1, b"")) for r in replies}) if not err else -1


def cc_settings(genl, fam, ops, sets):
    """The namespace's congestion-control settings, by name."""
    err, replies = genl.request(fam, ops["cc-get"][0])
    if err or not replies:
        return None
    names = {v: n for n, (v, _) in sets["cc"].items()}
    cc = dict(replies[0]).get(sets["mrc"]["cc"][0], b"")
    return {names.get(t, t): struct.unpack("I", d)[0] for t, d in attrs(cc)}


def test_cc_garbage(genl, fam, spec, sets):
    """cc-set with bad settings: each refused as expected, nothing changes."""
    ops = spec_ops(spec)
    a_cc = sets["mrc"]["cc"][0]
    cc = {n: v for n, (v, _) in sets["cc"].items()}
    u32 = lambda name, val: attr(cc[name], struct.pack("I", val))
    lim = {n: a.get("checks", {}) for n, (_, a) in sets["cc"].items()}
    # (what, payload, errno, extack: a message, or the missing attribute)
    garbage = [
        ("max-cwnd above its max", nest(a_cc, u32("max-cwnd", lim["max-cwnd"]["max"] + 1)),
         errno.ERANGE, "msg"),
        ("max-cwnd below its min", nest(a_cc, u32("max-cwnd", lim["max-cwnd"]["min"] - 1)),
         errno.ERANGE, "msg"),
        ("target-delay-us 0", nest(a_cc, u32("target-delay-us", 0)), errno.ERANGE, "msg"),
        ("md above its max", nest(a_cc, u32("md", lim["md"]["max"] + 1)), errno.ERANGE, "msg"),
        ("qa-delay-us above its max",
         nest(a_cc, u32("qa-delay-us", lim["qa-delay-us"]["max"] + 1)), errno.ERANGE, "msg"),
        ("a good setting beside a bad one",
         nest(a_cc, u32("ai", 7) + u32("fi", lim["fi"]["max"] + 1)), errno.ERANGE, "msg"),
        ("ai of 2 bytes", nest(a_cc, attr(cc["ai"], b"\x07\x00")), errno.EINVAL, "msg"),
        ("ai of 8 bytes", nest(a_cc, attr(cc["ai"], struct.pack("Q", 7))), errno.EINVAL, "msg"),
        ("unknown attribute in cc", nest(a_cc, u32("ai", 7) + attr(99, b"zzzz")),
         errno.EINVAL, "msg"),
        ("cc without NLA_F_NESTED", attr(a_cc, u32("ai", 7)), errno.EINVAL, "msg"),
        ("empty cc", nest(a_cc, b""), errno.EINVAL, "msg"),
        ("qa-delay-us equal to target-delay-us",
         nest(a_cc, u32("target-delay-us", 5000) + u32("qa-delay-us", 5000)),
         errno.EINVAL, "msg"),
        ("no cc at all", b"", errno.EINVAL, "missing"),
    ]
    ok = True
    before = cc_settings(genl, fam, ops, sets)
    if not before or set(before) != set(cc):
        print(f"# cc-get: {before}, not every setting")
        return False
    for what, payload, want, ext in garbage:
        err, _ = genl.request(fam, ops["cc-set"][0], payload)
        msg = genl.extack_msg()
        miss = genl.extack.get(NLMSGERR_ATTR_MISS_TYPE)
        print(f"# {what}: {errno.errorcode.get(err, err)} \"{msg}\"")
        if err != want:
            print(f"# {what}: expected {errno.errorcode[want]}")
            ok = False
        if ext == "msg" and not msg:
            print(f"# {what}: no extack message")
            ok = False
        # 6.1 names a missing attribute (NLMSGERR_ATTR_MISS_TYPE).
        if ext == "missing" and not msg and miss != struct.pack("I", a_cc):
            print(f"# {what}: extack names neither a message nor cc")
            ok = False
    after = cc_settings(genl, fam, ops, sets)
    if before != after:
        print(f"# settings {before} -> {after}: something changed")
        ok = False
    return ok


def probe_count(genl, fam, ops, sets, prefix):
    """The probes counter of each path of the set of prefix, by id."""
    mrc, pa, ps = sets["mrc"], sets["path"], sets["path-stats"]
    err, replies = genl.request(fam, ops["path-get"][0], prefix)
    if err or not replies:
        return None
    out = {}
    for atype, data in replies[0]:
        if atype != mrc["path"][0]:
            continue
        p = dict(attrs(data))
        st = dict(attrs(p.get(pa["stats"][0], b"")))
        out[struct.unpack("I", p[pa["id"][0]])[0]] = \
            struct.unpack("Q", st[ps["probes"][0]])[0]
    return out


def out_probes(genl, fam, ops):
    """The namespace's OutProbes counter."""
    err, replies = genl.request(fam, ops["stats-get"][0])
    if err or not replies:
        return None
    for atype, data in replies[0]:
        st = dict(attrs(data))
        if st.get(1, b"").rstrip(b"\0") == b"OutProbes":
            return struct.unpack("Q", st[2])[0]
    return None


def test_probe_garbage(genl, fam, spec, sets):
    """probe with bad attributes: each refused as expected, no probe sent."""
    ops = spec_ops(spec)
    mrc = sets["mrc"]
    a = lambda name, payload: attr(mrc[name][0], payload)
    u32 = lambda name, val: a(name, struct.pack("I", val))
    host = in6("2001:db8:79::1")
    prefix = a("prefix", host) + a("prefix-len", b"\x80")
    tmo = mrc["timeout-ms"][1]["checks"]
    # (what, payload, errno, extack: a message, or the missing attribute)
    garbage = [
        ("timeout-ms 0", prefix + u32("path-id", 1) + u32("timeout-ms", 0), errno.ERANGE, "msg"),
        ("timeout-ms above its max",
         prefix + u32("path-id", 1) + u32("timeout-ms", tmo["max"] + 1), errno.ERANGE, "msg"),
        ("timeout-ms of 2 bytes", prefix + u32("path-id", 1) + a("timeout-ms", b"\x10\x00"),
         errno.EINVAL, "msg"),
        # An exact length is a range of lengths: ERANGE, as for integers.
        ("daddr of 15 bytes", prefix + u32("path-id", 1) + a("daddr", host[:15]),
         errno.ERANGE, "msg"),
        ("daddr of 17 bytes", prefix + u32("path-id", 1) + a("daddr", host + b"\0"),
         errno.ERANGE, "msg"),
        ("path-id over 65535", prefix + u32("path-id", 70000), errno.ERANGE, "msg"),
        ("rtt-us (output only) in a request", prefix + u32("path-id", 1) + u32("rtt-us", 5),
         errno.EINVAL, "msg"),
        ("no path-id", prefix, errno.EINVAL, "missing:path-id"),
        ("no prefix", a("prefix-len", b"\x80") + u32("path-id", 1), errno.EINVAL, "missing:prefix"),
        ("daddr outside the prefix",
         prefix + u32("path-id", 1) + a("daddr", in6("2001:db8:7a::1")), errno.EINVAL, "msg"),
        ("a /64 without daddr",
         a("prefix", in6("2001:db8:79::")) + a("prefix-len", b"\x40") + u32("path-id", 1),
         errno.EINVAL, "msg"),
        ("no such path", prefix + u32("path-id", 2), errno.ENOENT, "msg"),
    ]
    # A set of one path, id 1, to probe: none of the above may send a probe.
    err, _ = genl.request(fam, ops["path-add"][0],
                          prefix + nest(mrc["path"][0], attr(sets["path"]["id"][0],
                                                             struct.pack("I", 1))))
    if err:
        print(f"# path-add 2001:db8:79::1/128: {errno.errorcode.get(err, err)}")
        return False
    ok = True
    before = (probe_count(genl, fam, ops, sets, prefix), out_probes(genl, fam, ops))
    if before[0] != {1: 0} or before[1] is None:
        print(f"# probes before: {before}, expected one path with none and OutProbes")
        ok = False
    for what, payload, want, ext in garbage:
        err, replies = genl.request(fam, ops["probe"][0], payload)
        msg = genl.extack_msg()
        miss = genl.extack.get(NLMSGERR_ATTR_MISS_TYPE)
        print(f"# {what}: {errno.errorcode.get(err, err)} \"{msg}\"")
        if err != want:
            print(f"# {what}: expected {errno.errorcode[want]}")
            ok = False
        if ext == "msg" and not msg:
            print(f"# {what}: no extack message")
            ok = False
        # GENL_REQ_ATTR_CHECK names the missing attribute.
        if ext.startswith("missing:") and not msg and \
           miss != struct.pack("I", mrc[ext.split(":")[1]][0]):
            print(f"# {what}: extack names neither a message nor {ext.split(':')[1]}")
            ok = False
    after = (probe_count(genl, fam, ops, sets, prefix), out_probes(genl, fam, ops))
    if before != after:
        print(f"# probes counted (path, OutProbes) {before} -> {after}: a probe went out")
        ok = False
    genl.request(fam, ops["path-del"][0], prefix)
    return ok


def main():
    results = []
    spec = yaml.safe_load(open(SPEC))
    genl = Genl()
    found = genl.family(spec["name"])
    names = ["kernel policy matches the YAML spec",
             "kernel operations match the YAML spec",
             "garbage attributes are rejected and change nothing",
             "garbage cc settings are rejected and change nothing",
             "garbage probe requests are rejected and send no probe"]
    print("TAP version 13")
    print(f"1..{len(names)}")
    if found is None:
        print("# family mrc not found: is mrc.ko loaded?")
        for i, name in enumerate(names):
            print(f"not ok {i + 1} {name}")
        print(f"# Totals: pass:0 fail:{len(names)} xfail:0 xpass:0 skip:0 error:0")
        return 1
    fam, kops = found

    def result(ok):
        results.append(ok)
        print(("ok" if ok else "not ok") + f" {len(results)} {names[len(results) - 1]}")

    problems = []
    sets = spec_sets(spec)
    pol = kernel_policies(genl, fam)
    top = spec["operations"]["list"][0]["attribute-set"]
    seen = set()
    compare(spec, sets, pol, 0, top, seen, problems)
    # Every set a request may nest was compared, so none went unchecked.
    for name in sorted(reachable(spec, sets, top, set()) - {s for _, s in seen}):
        problems.append(f"{name}: no kernel policy compared with it")
    for p in problems:
        print("# " + p)
    result(not problems)

    problems = []
    compare_ops(spec, kops, problems)
    for p in problems:
        print("# " + p)
    result(not problems)

    ops = {name: value for name, (value, _) in spec_ops(spec).items()}
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
    result(ok)

    result(test_cc_garbage(genl, fam, spec, sets))
    result(test_probe_garbage(genl, fam, spec, sets))
    print(f"# Totals: pass:{results.count(True)} fail:{results.count(False)} "
          "xfail:0 xpass:0 skip:0 error:0")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
