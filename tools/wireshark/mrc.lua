-- SPDX-License-Identifier: GPL-2.0
--
-- mrc.lua: Wireshark dissector for MRC (Multipath Reliable Connection).
--
-- An MRC packet is the payload of a UDP datagram to port 4797 (the
-- udp_port module parameter) over IPv6, with or without a Segment Routing
-- Header; Wireshark decodes IPv6, the SRH and UDP itself and hands the UDP
-- payload to this dissector. The format is struct mrc_hdr and the per-type
-- structures of include/mrc_wire.h, described in the "Wire format" section
-- of Documentation/networking/mrc.rst.
--
-- Usage, with Wireshark or tshark 4.0 or later:
--
--   tshark -X lua_script:tools/wireshark/mrc.lua -r file.pcap
--   tshark -X lua_script:tools/wireshark/mrc.lua -r file.pcap -V -Y mrc
--   tshark -X lua_script:tools/wireshark/mrc.lua -r file.pcap \
--          -T fields -e frame.number -e mrc.type -e mrc.psn -e mrc.ack.cum_psn
--
-- For Wireshark, copy the file to ~/.local/lib/wireshark/plugins/ (the
-- "Personal Lua Plugins" folder of Help > About Wireshark > Folders) and
-- restart Wireshark or use Analyze > Reload Lua Plugins. Preferences (also
-- with tshark -o): mrc.udp_port (default 4797) and mrc.trim_dscp (default
-- 11, the trim_dscp sysctl).
--
-- Field names: the common header's are mrc.<name> (mrc.type, mrc.dcid,
-- ...), as are fields several types share (mrc.psn in DATA and NACK,
-- mrc.tsval, mrc.tsecr, mrc.rwnd) and mrc.ev_echo; the others are
-- mrc.<type>.<name> (mrc.ack.cum_psn, mrc.syn.isn, mrc.nack.reason, ...).
-- Generated fields: mrc.payload_len and mrc.trimmed (DATA),
-- mrc.ack.sack_psn (each PSN the SACK map marks as received),
-- mrc.ack.sack_count and mrc.ack.sack_ranges, and mrc.gso.* for a UDP GSO
-- batch captured before segmentation (several DATA packets in one UDP
-- datagram; see "Encapsulation" in mrc.rst).
--
-- Expert infos: a packet shorter than its type's header is malformed (the
-- receiver drops it as DropShort); a header cut short by the capture's snap
-- length is only a note; an unknown version or type, non-zero reserved
-- bits and DATA fields a receiver rejects are warnings.

local mrc = Proto("mrc", "Multipath Reliable Connection")

local MRC_VERSION = 2
local MRC_MSG_MAX = 4 * 1024 * 1024	-- uapi/linux/mrc.h
local MRC_PORT = 4797
local MRC_TRIM_DSCP = 11
local HDR_LEN = 16			-- struct mrc_hdr
local PSN_SPACE = 16777216		-- PSNs are 24 bits

-- enum mrc_pkt_type
local T_DATA, T_ACK, T_NACK, T_SYN, T_SYNACK = 1, 2, 3, 4, 5
local T_FIN, T_RST, T_PROBE, T_PROBE_REPLY = 6, 7, 8, 9

local type_names = {
	[T_DATA] = "DATA", [T_ACK] = "ACK", [T_NACK] = "NACK",
	[T_SYN] = "SYN", [T_SYNACK] = "SYNACK", [T_FIN] = "FIN",
	[T_RST] = "RST", [T_PROBE] = "PROBE", [T_PROBE_REPLY] = "PROBE_REPLY",
}

-- Size of each type's header: sizeof(struct mrc_data) and so on.
local hdr_len = {
	[T_DATA] = 36, [T_ACK] = 68, [T_NACK] = 24, [T_SYN] = 40,
	[T_SYNACK] = 40, [T_FIN] = 20, [T_RST] = 20, [T_PROBE] = 24,
	[T_PROBE_REPLY] = 24,
}

-- MRC_F_* flags: bit number (MRC_F_ECE 0x0001 is bit 0) and name.
local flag_bits = {
	{ 0, "ECE" }, { 1, "FIN_ACK" }, { 2, "RETX" }, { 3, "DUP" },
	{ 4, "ACK_REQ" },
}
local FLAGS_RSVD = 0xffe0

local nack_reasons = { [1] = "TRIMMED", [2] = "NO_BUFFER" }
local rst_reasons = {
	[1] = "NO_CONN", [2] = "NO_LISTENER", [3] = "ABORT", [4] = "BACKLOG",
}

local f = {
	-- struct mrc_hdr
	version = ProtoField.uint8("mrc.version", "Version", base.DEC, nil, nil,
		"MRC_VERSION (2); receivers drop other versions"),
	type = ProtoField.uint8("mrc.type", "Type", base.DEC, type_names, nil,
		"Packet type (enum mrc_pkt_type)"),
	flags = ProtoField.uint16("mrc.flags", "Flags", base.HEX, nil, nil,
		"MRC_F_* bits"),
	flag_ece = ProtoField.bool("mrc.flags.ece", "ECE", 16, nil, 0x0001,
		"ACK: a DATA packet received since the previous ACK was CE-marked"),
	flag_fin_ack = ProtoField.bool("mrc.flags.fin_ack", "FIN_ACK", 16, nil,
		0x0002, "ACK: the sender of the ACK has received the peer's FIN"),
	flag_retx = ProtoField.bool("mrc.flags.retx", "RETX", 16, nil, 0x0004,
		"DATA: a retransmission"),
	flag_dup = ProtoField.bool("mrc.flags.dup", "DUP", 16, nil, 0x0008,
		"ACK: sent for a duplicate DATA packet"),
	flag_ack_req = ProtoField.bool("mrc.flags.ack_req", "ACK_REQ", 16, nil,
		0x0010, "DATA: acknowledge at once, do not delay"),
	flag_rsvd = ProtoField.uint16("mrc.flags.reserved", "Reserved", base.HEX,
		nil, FLAGS_RSVD, "Undefined flag bits, zero"),
	dcid = ProtoField.uint32("mrc.dcid", "Destination connection ID",
		base.HEX, nil, nil, "Id the receiver of this packet chose (0 in a SYN)"),
	scid = ProtoField.uint32("mrc.scid", "Source connection ID", base.HEX,
		nil, nil, "Id the sender of this packet chose"),
	ev = ProtoField.uint16("mrc.ev", "Entropy value (path)", base.DEC, nil,
		nil, "Path this packet is sent on"),
	plen = ProtoField.uint16("mrc.plen", "Payload length", base.DEC, nil, nil,
		"DATA: payload bytes after the DATA header; zero in other types"),

	-- Fields of several types.
	psn = ProtoField.uint32("mrc.psn", "PSN", base.DEC, nil, nil,
		"Packet sequence number (DATA; NACK: of the trimmed packet)"),
	tsval = ProtoField.uint32("mrc.tsval", "Timestamp value (us)", base.DEC,
		nil, nil, "Sender's clock in microseconds (DATA, SYN, SYNACK, PROBE)"),
	tsecr = ProtoField.uint32("mrc.tsecr", "Timestamp echo reply (us)",
		base.DEC, nil, nil, "Echoed tsval (ACK, SYNACK)"),
	rwnd = ProtoField.uint32("mrc.rwnd", "Receive window (bytes)", base.DEC,
		nil, nil, "Receive window (ACK, SYN, SYNACK)"),

	-- struct mrc_data
	msn = ProtoField.uint32("mrc.msn", "MSN", base.DEC, nil, nil,
		"Message sequence number"),
	offset = ProtoField.uint32("mrc.offset", "Offset", base.DEC, nil, nil,
		"Byte offset of the payload in the message"),
	msg_len = ProtoField.uint32("mrc.msg_len", "Message length", base.DEC,
		nil, nil, "Total length of the message"),
	payload_len = ProtoField.uint32("mrc.payload_len", "Payload on the wire",
		base.DEC, nil, nil, "Payload bytes the packet carries (less than plen: trimmed)"),
	trimmed = ProtoField.bool("mrc.trimmed", "Trimmed", base.NONE, nil, nil,
		"A switch cut the payload off (short payload or the trim DSCP)"),

	-- struct mrc_ack
	cum_psn = ProtoField.uint32("mrc.ack.cum_psn", "Cumulative PSN", base.DEC,
		nil, nil, "Every PSN before this one has arrived; this one has not"),
	sack = ProtoField.uint64("mrc.ack.sack", "SACK word", base.HEX, nil, nil,
		"Bit i of word j: PSN cum_psn + 1 + 64 * j + i has arrived"),
	sack_count = ProtoField.uint32("mrc.ack.sack_count", "SACKed PSNs",
		base.DEC, nil, nil, "Number of PSNs the SACK map marks as received"),
	sack_ranges = ProtoField.string("mrc.ack.sack_ranges", "SACKed ranges",
		base.ASCII, "PSNs the SACK map marks as received, as ranges"),
	sack_psn = ProtoField.uint32("mrc.ack.sack_psn", "SACKed PSN", base.DEC,
		nil, nil, "A PSN the SACK map marks as received"),
	ev_echo = ProtoField.uint16("mrc.ev_echo", "EV echo", base.DEC, nil, nil,
		"Path of the latest DATA packet received"),
	ack_rsvd = ProtoField.uint16("mrc.ack.rsvd", "Reserved", base.HEX),
	svc_time = ProtoField.uint32("mrc.ack.svc_time_us", "Service time (us)",
		base.DEC, nil, nil, "Time the echoed DATA packet waited before this ACK"),

	-- struct mrc_nack
	nack_ev = ProtoField.uint16("mrc.nack.ev", "EV (arrival path)", base.DEC,
		nil, nil, "Path the trimmed packet arrived on"),
	nack_reason = ProtoField.uint8("mrc.nack.reason", "Reason", base.DEC,
		nack_reasons, nil, "enum mrc_nack_reason"),
	nack_rsvd = ProtoField.uint8("mrc.nack.rsvd", "Reserved", base.HEX),

	-- struct mrc_syn
	syn_sport = ProtoField.uint16("mrc.syn.sport", "Source MRC port",
		base.DEC),
	syn_dport = ProtoField.uint16("mrc.syn.dport", "Destination MRC port",
		base.DEC),
	syn_isn = ProtoField.uint32("mrc.syn.isn", "Initial PSN", base.DEC, nil,
		nil, "First PSN the sender will use"),
	syn_mss = ProtoField.uint16("mrc.syn.mss", "MSS", base.DEC, nil, nil,
		"Largest DATA payload the sender can receive"),
	syn_rsvd = ProtoField.uint16("mrc.syn.rsvd", "Reserved", base.HEX),

	-- struct mrc_fin, mrc_rst, mrc_probe
	final_msn = ProtoField.uint32("mrc.fin.final_msn", "Final MSN", base.DEC,
		nil, nil, "MSN the next message would have had"),
	rst_reason = ProtoField.uint32("mrc.rst.reason", "Reason", base.DEC,
		rst_reasons, nil, "enum mrc_rst_reason"),
	probe_token = ProtoField.uint32("mrc.probe.token", "Token", base.HEX,
		nil, nil, "Chosen by the prober, echoed by the reply"),

	-- UDP GSO batch (several DATA packets in one UDP datagram)
	gso_segments = ProtoField.uint32("mrc.gso.segments", "GSO batch packets",
		base.DEC, nil, nil, "DATA packets in this UDP datagram"),
	gso_uncaptured = ProtoField.uint32("mrc.gso.uncaptured",
		"GSO batch packets not captured", base.DEC, nil, nil,
		"DATA packets of the batch beyond the capture's snap length"),
	gso_last_psn = ProtoField.uint32("mrc.gso.last_psn", "GSO batch last PSN",
		base.DEC, nil, nil, "PSN of the batch's last packet (PSNs are consecutive)"),
}

-- The values of table t in the order of its sorted keys.
local function sorted_values(t)
	local keys, values = {}, {}

	for k in pairs(t) do
		keys[#keys + 1] = k
	end
	table.sort(keys)
	for i, k in ipairs(keys) do
		values[i] = t[k]
	end
	return values
end

mrc.fields = sorted_values(f)

local e = {
	short = ProtoExpert.new("mrc.expert.short", "Packet shorter than its header",
		expert.group.MALFORMED, expert.severity.ERROR),
	snaplen = ProtoExpert.new("mrc.expert.snaplen",
		"Header cut short by the capture's snap length",
		expert.group.UNDECODED, expert.severity.NOTE),
	version = ProtoExpert.new("mrc.expert.version", "Unknown MRC version",
		expert.group.PROTOCOL, expert.severity.WARN),
	type = ProtoExpert.new("mrc.expert.type", "Unknown MRC packet type",
		expert.group.PROTOCOL, expert.severity.WARN),
	rsvd = ProtoExpert.new("mrc.expert.rsvd", "Reserved bits not zero",
		expert.group.PROTOCOL, expert.severity.WARN),
	plen = ProtoExpert.new("mrc.expert.plen", "plen not zero in a non-DATA packet",
		expert.group.PROTOCOL, expert.severity.WARN),
	trailing = ProtoExpert.new("mrc.expert.trailing", "Bytes after the header",
		expert.group.PROTOCOL, expert.severity.NOTE),
	trimmed = ProtoExpert.new("mrc.expert.trimmed", "DATA packet trimmed",
		expert.group.SEQUENCE, expert.severity.NOTE),
	bad_msg = ProtoExpert.new("mrc.expert.bad_msg",
		"DATA packet a receiver drops (DropBadMsg)",
		expert.group.PROTOCOL, expert.severity.WARN),
	sack = ProtoExpert.new("mrc.expert.sack", "SACK map beyond the window",
		expert.group.PROTOCOL, expert.severity.WARN),
	gso = ProtoExpert.new("mrc.expert.gso", "UDP GSO batch",
		expert.group.SEQUENCE, expert.severity.CHAT),
	gso_bad = ProtoExpert.new("mrc.expert.gso_bad",
		"Packet does not continue the UDP GSO batch",
		expert.group.PROTOCOL, expert.severity.WARN),
}

mrc.experts = sorted_values(e)

mrc.prefs.udp_port = Pref.uint("UDP port", MRC_PORT,
	"UDP port of MRC: the mrc module's udp_port parameter (0: none)")
mrc.prefs.trim_dscp = Pref.uint("Trim DSCP", MRC_TRIM_DSCP,
	"DSCP of trimmed DATA packets: the trim_dscp sysctl (64: none)")

local data_dissector = Dissector.get("data")
local ipv6_dscp = Field.new("ipv6.tclass.dscp")

-- Common header and per-type bodies: { key, field, offset, size, ... }.
-- rsvd: must be zero; flags: the MRC_F_* bit tree; word: a SACK word.
local common = {
	{ "version", f.version, 0, 1 },
	{ "type", f.type, 1, 1 },
	{ "flags", f.flags, 2, 2, flags = true },
	{ "dcid", f.dcid, 4, 4 },
	{ "scid", f.scid, 8, 4 },
	{ "ev", f.ev, 12, 2 },
	{ "plen", f.plen, 14, 2 },
}

local syn_body = {
	{ "sport", f.syn_sport, 16, 2 },
	{ "dport", f.syn_dport, 18, 2 },
	{ "isn", f.syn_isn, 20, 4 },
	{ "rwnd", f.rwnd, 24, 4 },
	{ "mss", f.syn_mss, 28, 2 },
	{ "rsvd", f.syn_rsvd, 30, 2, rsvd = true },
	{ "tsval", f.tsval, 32, 4 },
	{ "tsecr", f.tsecr, 36, 4 },
}

local probe_body = {
	{ "token", f.probe_token, 16, 4 },
	{ "tsval", f.tsval, 20, 4 },
}

local body = {
	[T_DATA] = {
		{ "psn", f.psn, 16, 4 },
		{ "msn", f.msn, 20, 4 },
		{ "offset", f.offset, 24, 4 },
		{ "msg_len", f.msg_len, 28, 4 },
		{ "tsval", f.tsval, 32, 4 },
	},
	[T_ACK] = {
		{ "cum_psn", f.cum_psn, 16, 4 },
		{ "sack0", f.sack, 20, 8, word = 0 },
		{ "sack1", f.sack, 28, 8, word = 1 },
		{ "sack2", f.sack, 36, 8, word = 2 },
		{ "sack3", f.sack, 44, 8, word = 3 },
		{ "ev_echo", f.ev_echo, 52, 2 },
		{ "rsvd", f.ack_rsvd, 54, 2, rsvd = true },
		{ "rwnd", f.rwnd, 56, 4 },
		{ "tsecr", f.tsecr, 60, 4 },
		{ "svc_time", f.svc_time, 64, 4 },
	},
	[T_NACK] = {
		{ "psn", f.psn, 16, 4 },
		{ "ev", f.nack_ev, 20, 2 },
		{ "reason", f.nack_reason, 22, 1 },
		{ "rsvd", f.nack_rsvd, 23, 1, rsvd = true },
	},
	[T_SYN] = syn_body,
	[T_SYNACK] = syn_body,
	[T_FIN] = { { "final_msn", f.final_msn, 16, 4 } },
	[T_RST] = { { "reason", f.rst_reason, 16, 4 } },
	[T_PROBE] = probe_body,
	[T_PROBE_REPLY] = probe_body,
}

-- Bit b (0 = least significant) of the non-negative integer x.
local function bit(x, b)
	return math.floor(x / 2 ^ b) % 2 == 1
end

-- The captured part of bytes [off, off + len) of the UDP payload, or nil.
local function crange(ctx, off, len)
	len = math.min(len, ctx.caplen - off)
	if off < 0 or len <= 0 then
		return nil
	end
	return ctx.tvb(off, len)
end

-- The unsigned integer of size bytes at off, or nil if not captured.
local function peek(ctx, off, size)
	if off + size > ctx.caplen then
		return nil
	end
	return ctx.tvb(off, size):uint()
end

-- Add a generated item with value v, over range r if there is one.
local function generated(tree, pf, r, v)
	local item
	if r then
		item = tree:add(pf, r, v)
	else
		item = tree:add(pf, v)
	end
	item:set_generated()
	return item
end

-- Names of the MRC_F_* flags set in flags.
local function flag_names(flags)
	local names = {}

	for _, fb in ipairs(flag_bits) do
		if bit(flags, fb[1]) then
			names[#names + 1] = fb[2]
		end
	end
	return names
end

-- "n" or "?" when a field was not captured.
local function num(v)
	if v == nil then
		return "?"
	end
	return string.format("%d", v)
end

local function name_of(names, v)
	if v == nil then
		return "?"
	end
	return names[v] or string.format("%d", v)
end

-- Add the fields of specs to tree, offsets relative to base; a field is
-- added when captured and inside the packet, which ends at stop. Returns
-- the values by key; ctx.cut is set when a field inside the packet was not
-- captured.
local function add_fields(ctx, tree, base, specs, stop)
	local v = {}

	for _, s in ipairs(specs) do
		local key, pf, off, size = s[1], s[2], base + s[3], s[4]

		if off + size <= ctx.caplen and off + size <= stop then
			local r = ctx.tvb(off, size)
			local item = tree:add(pf, r)

			if size == 8 then
				local hi, lo = ctx.tvb(off, 4):uint(), ctx.tvb(off + 4, 4):uint()

				v[key] = { hi = hi, lo = lo }
				item:set_text(string.format("SACK word %d: 0x%08x%08x",
					s.word, hi, lo))
			else
				v[key] = r:uint()
			end
			if s.rsvd and v[key] ~= 0 then
				item:add_proto_expert_info(e.rsvd)
			end
			if s.flags then
				local fl = v[key]

				item:add(f.flag_ece, r)
				item:add(f.flag_fin_ack, r)
				item:add(f.flag_retx, r)
				item:add(f.flag_dup, r)
				item:add(f.flag_ack_req, r)
				item:add(f.flag_rsvd, r)
				local names = flag_names(fl)
				if #names > 0 then
					item:append_text(" (" .. table.concat(names, ", ") .. ")")
				end
				if fl >= 0x20 then
					item:add_proto_expert_info(e.rsvd,
						string.format("Undefined flag bits set: 0x%04x",
							fl - fl % 0x20))
				end
			end
		elseif off + size <= stop then
			ctx.cut = true
		end
	end
	return v
end

-- A packet shorter than its header: malformed, unless it is quoted in an
-- ICMPv6 error, which carries only the start of the packet.
local function too_short(ctx, item, msg)
	if ctx.in_error then
		item:add_proto_expert_info(e.snaplen, msg .. " (cut short in an ICMPv6 error)")
	else
		item:add_proto_expert_info(e.short, msg .. " (receivers drop it: DropShort)")
	end
end

-- The rest of the packet, [off, stop), as data.
local function add_data(ctx, off, stop)
	local r = crange(ctx, off, stop - off)

	if r then
		data_dissector:call(r:tvb(), ctx.pinfo, ctx.tree)
	end
end

-- Turn a list of PSNs in serial order into "a-b,c,...".
local function ranges(psns)
	local out = {}
	local i = 1

	while i <= #psns do
		local j = i

		while j < #psns and psns[j + 1] == (psns[j] + 1) % PSN_SPACE do
			j = j + 1
		end
		if j == i then
			out[#out + 1] = string.format("%d", psns[i])
		else
			out[#out + 1] = string.format("%d-%d", psns[i], psns[j])
		end
		i = j + 1
	end
	return table.concat(out, ",")
end

-- ACK: expand the SACK map into the PSNs it marks as received.
local function dissect_sack(ctx, item, off, v)
	local psns = {}
	local partial = false

	if v.cum_psn == nil then
		return nil
	end
	for j = 0, 3 do
		local w = v["sack" .. j]

		if w == nil then
			partial = true
		else
			for b = 0, 63 do
				local set

				if b < 32 then
					set = w.lo ~= 0 and bit(w.lo, b)
				else
					set = w.hi ~= 0 and bit(w.hi, b - 32)
				end
				if set then
					psns[#psns + 1] = (v.cum_psn + 1 + 64 * j + b) % PSN_SPACE
				end
			end
			if j == 3 and bit(w.hi, 31) then
				item:add_proto_expert_info(e.sack,
					"SACK bit 63 of word 3 set: PSN cum_psn + 256 is beyond the receive window")
			end
		end
	end

	local map = crange(ctx, off + 20, 32)
	local ci = generated(item, f.sack_count, map, #psns)
	if partial then
		ci:append_text(" (SACK map not all captured)")
	end
	if #psns > 0 then
		generated(ci, f.sack_ranges, map, ranges(psns))
		for _, p in ipairs(psns) do
			local j = math.floor(((p - v.cum_psn - 1) % PSN_SPACE) / 64)

			generated(ci, f.sack_psn, crange(ctx, off + 20 + 8 * j, 8), p)
		end
	end
	if partial then
		return string.format("%d+", #psns)
	end
	return string.format("%d", #psns)
end

-- DATA: payload, trim and message checks. len: the packet's bytes on the
-- wire (header and payload, not what follows in a GSO batch).
local function dissect_data(ctx, item, off, len, h, v)
	local hl = hdr_len[T_DATA]
	local wire = len - hl
	local trimmed

	if wire < 0 or h.plen == nil then
		return nil
	end
	if ctx.in_error then
		-- An ICMPv6 error quotes the start of the packet only.
		add_data(ctx, off + hl, off + len)
		return nil
	end
	generated(item, f.payload_len, nil, wire)
	if wire < h.plen then
		trimmed = string.format("Trimmed: %d of %d payload bytes (the receiver answers with a NACK)",
			wire, h.plen)
	elseif ctx.dscp ~= nil and ctx.dscp == mrc.prefs.trim_dscp then
		trimmed = string.format("Trimmed: DSCP %d is the trim DSCP (the receiver answers with a NACK)",
			ctx.dscp)
	end
	generated(item, f.trimmed, nil, trimmed ~= nil)
	if trimmed then
		item:add_proto_expert_info(e.trimmed, trimmed)
	elseif v.offset and v.msg_len then
		local why

		if v.msg_len > MRC_MSG_MAX then
			why = string.format("msg_len %d is over MRC_MSG_MAX", v.msg_len)
		elseif v.offset > v.msg_len or h.plen > v.msg_len - v.offset then
			why = "the payload does not fit in the message"
		elseif h.plen == 0 and v.msg_len ~= 0 then
			why = "no payload in a non-empty message"
		end
		if why then
			item:add_proto_expert_info(e.bad_msg,
				"A receiver drops this packet (DropBadMsg): " .. why)
		end
	end
	add_data(ctx, off + hl, off + len)
	return trimmed ~= nil
end

-- Dissect the MRC packet at off, the rest of the UDP payload unless it is
-- DATA followed by more bytes than its plen. Returns a table: item, info,
-- typ, h and v (field values), len (bytes it spans on the wire) and excess
-- (offset of the bytes after a DATA packet's payload, if any).
local function dissect_one(ctx, off)
	local rem = ctx.replen - off
	local res = {}
	local ver, typ = peek(ctx, off, 1), peek(ctx, off + 1, 1)
	local plen = peek(ctx, off + 14, 2)
	local hl = (ver == MRC_VERSION and typ ~= nil) and hdr_len[typ] or nil
	local len = rem

	if rem >= HDR_LEN and typ == T_DATA and hl and plen and rem > hl + plen and
	   not ctx.in_error then
		len = hl + plen
		res.excess = off + len
	end
	res.len = len

	local r = crange(ctx, off, len)
	local item
	if r then
		item = ctx.tree:add(mrc, r)
	else
		item = ctx.tree:add(mrc)
	end
	res.item = item

	ctx.cut = false
	local h = add_fields(ctx, item, off, common, off + len)
	res.h = h
	res.typ = h.type
	res.v = {}

	if rem < HDR_LEN then
		too_short(ctx, item,
			string.format("%d bytes: shorter than the %d-byte common header",
				rem, HDR_LEN))
		res.info = "MRC (short)"
		item:append_text(", " .. res.info)
		return res
	end
	if ver == nil or typ == nil then
		item:add_proto_expert_info(e.snaplen)
		res.info = "MRC (not captured)"
		return res
	end
	if ver ~= MRC_VERSION then
		item:add_proto_expert_info(e.version,
			string.format("Unknown MRC version %d (receivers drop it)", ver))
		res.info = string.format("MRC version %d", ver)
		item:append_text(", " .. res.info)
		if ctx.cut then
			item:add_proto_expert_info(e.snaplen)
		end
		add_data(ctx, off + HDR_LEN, off + len)
		return res
	end
	if not hl then
		item:add_proto_expert_info(e.type,
			string.format("Unknown MRC packet type %d (receivers drop it)", typ))
		res.info = string.format("Unknown type %d", typ)
		item:append_text(", " .. res.info)
		if ctx.cut then
			item:add_proto_expert_info(e.snaplen)
		end
		add_data(ctx, off + HDR_LEN, off + len)
		return res
	end

	local tname = type_names[typ]
	if rem < hl then
		too_short(ctx, item,
			string.format("%s packet of %d bytes: shorter than its %d-byte header",
				tname, rem, hl))
	end

	local v = add_fields(ctx, item, off, body[typ], off + len)
	res.v = v

	local info
	if typ == T_DATA then
		local trimmed = dissect_data(ctx, item, off, len, h, v)

		info = string.format("DATA psn=%s msn=%s off=%s/%s plen=%s ev=%s",
			num(v.psn), num(v.msn), num(v.offset), num(v.msg_len),
			num(h.plen), num(h.ev))
		if trimmed then
			info = info .. " TRIMMED"
		end
	elseif typ == T_ACK then
		local n = dissect_sack(ctx, item, off, v)

		info = string.format("ACK cum_psn=%s sacked=%s ev_echo=%s rwnd=%s",
			num(v.cum_psn), n or "?", num(v.ev_echo), num(v.rwnd))
	elseif typ == T_NACK then
		info = string.format("NACK psn=%s reason=%s ev=%s", num(v.psn),
			name_of(nack_reasons, v.reason), num(v.ev))
	elseif typ == T_SYN or typ == T_SYNACK then
		info = string.format("%s sport=%s dport=%s isn=%s mss=%s rwnd=%s",
			tname, num(v.sport), num(v.dport), num(v.isn), num(v.mss),
			num(v.rwnd))
	elseif typ == T_FIN then
		info = string.format("FIN final_msn=%s", num(v.final_msn))
	elseif typ == T_RST then
		info = string.format("RST reason=%s", name_of(rst_reasons, v.reason))
	else
		info = string.format("%s ev=%s token=%s", tname, num(h.ev),
			v.token and string.format("0x%08x", v.token) or "?")
	end

	if typ ~= T_DATA then
		if h.plen and h.plen ~= 0 then
			item:add_proto_expert_info(e.plen,
				string.format("plen %d in a %s packet: zero expected", h.plen, tname))
		end
		if len > hl then
			item:add_proto_expert_info(e.trailing,
				string.format("%d bytes after the %d-byte %s header (ignored by receivers)",
					len - hl, hl, tname))
			add_data(ctx, off + hl, off + len)
		end
	end
	if h.flags then
		local names = flag_names(h.flags)

		if #names > 0 then
			info = info .. " [" .. table.concat(names, ",") .. "]"
		end
	end
	if ctx.cut then
		item:add_proto_expert_info(e.snaplen,
			string.format("%s header cut short by the capture's snap length",
				tname))
	end
	res.info = info
	item:append_text(", " .. info)
	return res
end

-- Several DATA packets in one UDP datagram: a UDP GSO batch captured before
-- segmentation. Packets are 36 + MSS bytes each (the last possibly less)
-- with consecutive PSNs. Dissects those captured after the first; returns
-- the Info column text.
local function dissect_batch(ctx, first)
	local seg = first.len
	local last = first
	local k = 1
	local more = 0

	while last.excess do
		local off = last.excess
		local ver, typ = peek(ctx, off, 1), peek(ctx, off + 1, 1)

		if ver == nil then
			-- Not captured: as many packets as fit, the last shorter.
			if seg <= hdr_len[T_DATA] then
				break
			end
			more = math.ceil((ctx.replen - off) / seg)
			break
		end
		if ver ~= MRC_VERSION or typ ~= T_DATA or last.len ~= seg then
			break
		end
		local res = dissect_one(ctx, off)
		local bad

		k = k + 1
		if res.h.dcid ~= first.h.dcid or res.h.scid ~= first.h.scid or
		   res.h.ev ~= first.h.ev then
			bad = "connection ids or EV differ from the first packet's"
		elseif last.v.psn and res.v.psn and
		       res.v.psn ~= (last.v.psn + 1) % PSN_SPACE then
			bad = string.format("PSN %d does not follow %d", res.v.psn,
				last.v.psn)
		end
		if bad then
			res.item:add_proto_expert_info(e.gso_bad,
				"Does not continue the UDP GSO batch: " .. bad)
		end
		last = res
	end

	if last.excess and more == 0 then
		-- Not the start of another DATA packet: extra payload.
		local extra = ctx.replen - last.excess

		last.item:add_proto_expert_info(e.bad_msg,
			string.format("A receiver drops this packet (DropBadMsg): %d payload bytes beyond plen",
				extra))
		add_data(ctx, last.excess, ctx.replen)
		if k == 1 then
			return first.info
		end
	end

	local total = k + more
	local last_psn
	if last.v.psn then
		last_psn = (last.v.psn + more) % PSN_SPACE
	end
	local item = first.item
	local ti = generated(item, f.gso_segments, nil, total)
	generated(ti, f.gso_uncaptured, nil, more)
	if last_psn then
		generated(ti, f.gso_last_psn, nil, last_psn)
	end
	item:add_proto_expert_info(e.gso,
		string.format("UDP GSO batch of %d DATA packets of %d bytes (%d not captured), segmented on the way",
			total, seg, more))
	return string.format("%s [GSO batch of %d: psn %s-%s]", first.info, total,
		num(first.v.psn), num(last_psn))
end

function mrc.dissector(tvb, pinfo, tree)
	local dscps = { ipv6_dscp() }
	local ctx = {
		tvb = tvb,
		pinfo = pinfo,
		tree = tree,
		caplen = tvb:len(),
		replen = tvb:reported_len(),
		in_error = pinfo.in_error_pkt,
	}

	-- The innermost IPv6 header's: that of the packet carrying this UDP.
	if #dscps > 0 then
		ctx.dscp = dscps[#dscps].value
	end
	pinfo.cols.protocol:set("MRC")

	local first = dissect_one(ctx, 0)
	local info = first.info

	if first.excess then
		info = dissect_batch(ctx, first)
	end
	pinfo.cols.info:set(info)
	return ctx.replen
end

local registered_port = 0

local function register_port()
	local udp = DissectorTable.get("udp.port")

	if registered_port ~= 0 then
		udp:remove(registered_port, mrc)
	end
	registered_port = mrc.prefs.udp_port
	if registered_port ~= 0 then
		udp:add(registered_port, mrc)
	end
end

function mrc.prefs_changed()
	if mrc.prefs.udp_port ~= registered_port then
		register_port()
	end
end

register_port()
