-- SPDX-License-Identifier: GPL-2.0
--
-- mrc10.lua: Wireshark dissector for the MRC 1.0 packet format.
--
-- MRC 1.0 frames its packets as RoCEv2 does: after UDP (port 4971, the
-- mrc10.udp_port preference), InfiniBand's BTH, then the extension headers
-- of the opcode (WRITE: METH, TSETH when BTH's TS bit is set, RETH, ImmDt
-- on the _IMM opcodes; SACK: SETH and its CC state; NACK: NETH; probe:
-- PETH; endpoint request and response: ERTH, EETH), the payload, the pad
-- and a 4-byte ICRC. The layouts are Documentation/networking/
-- mrc-1.0-sources.rst's; AF_MRC's use of each field, its extension (the
-- connection header after an endpoint request of op 2, the window after a
-- SACK whose x bit is set) and the ICRC over SRv6 are mrc-1.0-mapping.rst's.
--
-- BTH is decoded by Wireshark's own InfiniBand dissector (fields
-- infiniband.bth.*), as it decodes RoCEv2; this one adds the rest, as
-- mrc10.<header>.<field>, and checks the ICRC (mrc10.icrc.status: 1 good,
-- 0 bad; a bad one is also an expert error).
--
--   tshark -X lua_script:tools/wireshark/mrc10.lua -r file.pcap -V
--   tshark -X lua_script:tools/wireshark/mrc10.lua -r file.pcap -T fields \
--          -e infiniband.bth.opcode -e mrc10.meth.msn -e mrc10.icrc.status

local mrc10 = Proto("mrc10", "MRC 1.0")

local PORT = 4971
local ICRC_LEN = 4

local OPCODES = {
	[0xc6] = "WRITE First", [0xc7] = "WRITE Middle", [0xc8] = "WRITE Last",
	[0xc9] = "WRITE Last with Immediate", [0xca] = "WRITE Only",
	[0xcb] = "WRITE Only with Immediate", [0xd1] = "Transport ACK",
	[0xd8] = "Endpoint Request", [0xd9] = "Endpoint Response",
	[0xdc] = "Reliability SACK", [0xdd] = "Reliability NACK",
	[0xde] = "Reliability Probe",
}
local NACK_REASONS = {
	[0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP",
	[0x07] = "NO_PKT_BUFFER", [0x0a] = "NO_RESOURCE",
	[0x0b] = "PSN_OOR_WINDOW", [0x19] = "UNEXP_EVENT",
}
local SACK_M = { [0] = "NONE", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP" }
local EP_OPS = { [0] = "PORT_STATUS_UPDATE", [1] = "EV_PROBE",
		 [2] = "AF_MRC connection" }
local XCONN = { [1] = "SYN", [2] = "SYN-ACK", [3] = "FIN", [4] = "RST" }

local f = {}
local function F(name, ...)
	f[name] = ProtoField[select(1, ...)]("mrc10." .. name, select(2, ...))
end

F("opcode", "uint8", "Opcode", base.HEX, OPCODES)
F("meth.rqmsn", "uint16", "RQMSN")
F("meth.msn", "uint16", "MSN")
F("tseth.ts", "uint16", "Transmit timestamp")
F("tseth.tsr", "uint16", "TSR", base.DEC, nil, 0x8000)
F("tseth.ftype", "uint16", "Format type", base.DEC, nil, 0x000f)
F("reth.va", "uint64", "Virtual address (offset in the message)")
F("reth.rkey", "uint32", "R_Key", base.HEX)
F("reth.dma_len", "uint32", "DMA length (message length)")
F("imm", "uint32", "Immediate data")
F("aeth.syndrome", "uint8", "Syndrome", base.HEX)
F("aeth.msn", "uint24", "MSN")
F("seth.m", "uint16", "m", base.DEC, SACK_M, 0x0060)
F("seth.pr", "uint16", "Answers a probe", base.DEC, nil, 0x0002)
F("seth.x", "uint16", "AF_MRC extension follows", base.DEC, nil, 0x0001)
F("seth.ack_psn_offset", "int16", "ACK PSN offset")
F("seth.entropy", "uint32", "Entropy", base.HEX)
F("seth.spdcid", "uint16", "SPDCID", base.HEX)
F("seth.dpdcid", "uint16", "DPDCID", base.HEX)
F("seth.cack_psn", "uint24", "Cumulative ACK PSN")
F("seth.cc_type", "uint8", "CC type", base.DEC, nil, 0xf0)
F("seth.cc_fl", "uint8", "CC flags", base.HEX, nil, 0x0f)
F("seth.mpr", "uint8", "MPR (x128 packets)")
F("seth.sack_offset", "int16", "SACK offset")
F("seth.bitmap", "uint64", "SACK bitmap", base.HEX)
F("seth.sack_psn", "uint24", "SACKed PSN")
F("cc.ts", "uint16", "Echoed timestamp")
F("cc.ooo_count", "uint16", "Out-of-order count", base.DEC, nil, 0x7fff)
F("cc.r_c", "uint8", "Restore cwnd", base.DEC, nil, 0x80)
F("cc.rcv_cwnd_pen", "uint8", "Receiver cwnd penalty", base.DEC, nil, 0x7f)
F("cc.rcvd_bytes", "uint24", "Received bytes (x256)")
F("xack.rwnd", "uint32", "Receive window")
F("xack.hold_us", "uint16", "Hold time (us)")
F("xack.flags", "uint16", "Flags", base.HEX)
F("neth.reason", "uint8", "NACK reason", base.HEX, NACK_REASONS)
F("neth.vendor", "uint8", "Vendor info", base.HEX)
F("neth.entropy", "uint32", "Entropy", base.HEX)
F("neth.spdcid", "uint16", "SPDCID", base.HEX)
F("neth.dpdcid", "uint16", "DPDCID", base.HEX)
F("neth.nack_psn", "uint24", "NACK PSN")
F("neth.cc_type", "uint8", "CC type", base.DEC, nil, 0xf0)
F("neth.ts", "uint16", "Echoed timestamp")
F("peth.vendor", "uint8", "Vendor info", base.HEX)
F("peth.probe_id", "uint16", "Probe id")
F("peth.spdcid", "uint16", "SPDCID", base.HEX)
F("peth.dpdcid", "uint16", "DPDCID", base.HEX)
F("peth.ts", "uint16", "Transmit timestamp")
F("erth.op", "uint16", "Operation", base.DEC, EP_OPS, 0x0003)
F("erth.vendor", "uint8", "Vendor info", base.HEX)
F("erth.port_mask", "uint32", "Port status mask", base.HEX)
F("erth.ts", "uint16", "Transmit timestamp")
F("eeth.op", "uint16", "Operation", base.DEC, EP_OPS, 0x0030)
F("eeth.ts", "uint16", "Echoed timestamp")
F("xconn.type", "uint8", "AF_MRC message", base.DEC, XCONN)
F("xconn.sport", "uint16", "Source port")
F("xconn.dport", "uint16", "Destination port")
F("xconn.sqpn", "uint32", "Sender's QPN", base.HEX)
F("xconn.dqpn", "uint32", "Receiver's QPN", base.HEX)
F("xconn.isn", "uint32", "Initial PSN")
F("xconn.value", "uint32", "Final MSN or reset reason")
F("xconn.rwnd", "uint32", "Receive window")
F("xconn.mss", "uint16", "MSS")
F("xconn.flags", "uint16", "Flags", base.HEX)
F("payload", "bytes", "Payload")
F("pad", "bytes", "Pad")
F("icrc", "uint32", "ICRC (as on the wire)", base.HEX)
F("icrc.status", "uint8", "ICRC good", base.DEC, { [0] = "bad", [1] = "good" })

local e_short = ProtoExpert.new("mrc10.short", "Shorter than its opcode's headers",
				expert.group.MALFORMED, expert.severity.ERROR)
local e_icrc = ProtoExpert.new("mrc10.icrc.bad", "ICRC mismatch",
			       expert.group.CHECKSUM, expert.severity.ERROR)
local e_opcode = ProtoExpert.new("mrc10.opcode.unknown", "Not an MRC 1.0 opcode",
				 expert.group.PROTOCOL, expert.severity.WARN)

mrc10.fields = {}
for _, v in pairs(f) do
	mrc10.fields[#mrc10.fields + 1] = v
end
mrc10.experts = { e_short, e_icrc, e_opcode }
mrc10.prefs.udp_port = Pref.uint("UDP port", PORT, "UDP destination port of MRC 1.0")
mrc10.prefs.check_icrc = Pref.bool("Check the ICRC", true,
				   "Compute every packet's ICRC (CRC-32 over the packet)")

local ip_src = Field.new("ipv6.src")
local ip_dst = Field.new("ipv6.dst")
local srh_addr = Field.new("ipv6.routing.srh.addr")
local udp_sport = Field.new("udp.srcport")
local udp_dport = Field.new("udp.dstport")
local udp_len = Field.new("udp.length")

-- CRC-32 (zlib's), one table lookup a byte.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) == 1 then
			c = bit32.bxor(bit32.rshift(c, 1), 0xedb88320)
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_table[i] = c
end

local function crc_update(crc, s)
	for i = 1, #s do
		crc = bit32.bxor(crc_table[bit32.band(bit32.bxor(crc, s:byte(i)), 0xff)],
				 bit32.rshift(crc, 8))
	end
	return crc
end

-- The ICRC over the IPv6 header the packet has at its final destination
-- with no extension header (mrc-1.0-mapping.rst, ICRC), as a number read
-- little endian from the wire.
local function icrc(tvb)
	local src, dst = ip_src(), ip_dst()
	local segs = { srh_addr() }
	if segs[1] then
		dst = segs[1]
	end
	local len, dport = udp_len().value, udp_dport().value
	local pseudo = string.rep("\255", 8) ..
		"\111\255\255\255" .. string.char(bit32.rshift(len, 8), bit32.band(len, 0xff)) ..
		"\17\255" .. src.range:raw() .. dst.range:raw() ..
		string.char(bit32.rshift(udp_sport().value, 8), bit32.band(udp_sport().value, 0xff),
			    bit32.rshift(dport, 8), bit32.band(dport, 0xff),
			    bit32.rshift(len, 8), bit32.band(len, 0xff), 255, 255)
	local body = tvb:raw(0, tvb:len() - ICRC_LEN)
	body = body:sub(1, 4) .. "\255" .. body:sub(6)
	local c = crc_update(0xffffffff, pseudo .. body)
	return bit32.bnot(c)
end

local rroce = DissectorTable.get("udp.port"):get_dissector(4791)

-- Each header as a list of {field, offset, length}.
local function add(t, tvb, off, list)
	for _, e in ipairs(list) do
		t:add(f[e[1]], tvb(off + e[2], e[3]))
	end
end

local function sack_psns(t, tvb, off)
	local cack = tvb(off + 13, 3):uint()
	local base = (cack + tvb(off + 18, 2):int()) % 16777216
	local hi, lo = tvb(off + 20, 4):uint(), tvb(off + 24, 4):uint()
	for i = 0, 63 do
		local word = i < 32 and lo or hi
		if bit32.band(bit32.rshift(word, i % 32), 1) == 1 then
			t:add(f["seth.sack_psn"], tvb(off + 20, 8), (base + i) % 16777216):set_generated()
		end
	end
end

function mrc10.dissector(tvb, pinfo, tree)
	if tvb:len() < 12 + ICRC_LEN then
		return 0
	end
	if rroce then
		pcall(function() rroce:call(tvb, pinfo, tree) end)
	end
	local t = tree:add(mrc10, tvb())
	pinfo.cols.protocol = "MRC10"
	local op = tvb(0, 1):uint()
	t:add(f.opcode, tvb(0, 1))
	local name = OPCODES[op]
	if not name then
		t:add_proto_expert_info(e_opcode)
		return tvb:len()
	end
	pinfo.cols.info = name .. " QP " .. tvb(5, 3):uint() .. " PSN " .. tvb(9, 3):uint()
	local off, stop = 12, tvb:len() - ICRC_LEN
	local function need(n)
		if off + n > stop then
			t:add_proto_expert_info(e_short)
			return false
		end
		return true
	end
	if op >= 0xc6 and op <= 0xcb then
		local ts = bit32.band(tvb(8, 1):uint(), 0x10) ~= 0
		local imm = op == 0xc9 or op == 0xcb
		if not need(4 + (ts and 4 or 0) + 16 + (imm and 4 or 0)) then
			return tvb:len()
		end
		add(t, tvb, off, { { "meth.rqmsn", 0, 2 }, { "meth.msn", 2, 2 } })
		off = off + 4
		if ts then
			add(t, tvb, off, { { "tseth.ts", 0, 2 }, { "tseth.tsr", 2, 2 },
					   { "tseth.ftype", 2, 2 } })
			off = off + 4
		end
		add(t, tvb, off, { { "reth.va", 0, 8 }, { "reth.rkey", 8, 4 },
				   { "reth.dma_len", 12, 4 } })
		off = off + 16
		if imm then
			add(t, tvb, off, { { "imm", 0, 4 } })
			off = off + 4
		end
		local pad = bit32.rshift(bit32.band(tvb(1, 1):uint(), 0x30), 4)
		if stop - off > pad then
			t:add(f.payload, tvb(off, stop - off - pad))
		end
		if pad > 0 and stop - off >= pad then
			t:add(f.pad, tvb(stop - pad, pad))
		end
	elseif op == 0xd1 then
		if not need(4) then return tvb:len() end
		add(t, tvb, off, { { "aeth.syndrome", 0, 1 }, { "aeth.msn", 1, 3 } })
	elseif op == 0xdc then
		if not need(36) then return tvb:len() end
		add(t, tvb, off, {
			{ "seth.m", 0, 2 }, { "seth.pr", 0, 2 }, { "seth.x", 0, 2 },
			{ "seth.ack_psn_offset", 2, 2 }, { "seth.entropy", 4, 4 },
			{ "seth.spdcid", 8, 2 }, { "seth.dpdcid", 10, 2 },
			{ "seth.cack_psn", 13, 3 }, { "seth.cc_type", 16, 1 },
			{ "seth.cc_fl", 16, 1 }, { "seth.mpr", 17, 1 },
			{ "seth.sack_offset", 18, 2 }, { "seth.bitmap", 20, 8 },
			{ "cc.ts", 28, 2 }, { "cc.ooo_count", 30, 2 },
			{ "cc.r_c", 32, 1 }, { "cc.rcv_cwnd_pen", 32, 1 },
			{ "cc.rcvd_bytes", 33, 3 } })
		sack_psns(t, tvb, off)
		if bit32.band(tvb(off, 2):uint(), 1) == 1 and off + 44 <= stop then
			add(t, tvb, off + 36, { { "xack.rwnd", 0, 4 },
						{ "xack.hold_us", 4, 2 },
						{ "xack.flags", 6, 2 } })
		end
	elseif op == 0xdd then
		if not need(20) then return tvb:len() end
		add(t, tvb, off, {
			{ "neth.reason", 2, 1 }, { "neth.vendor", 3, 1 },
			{ "neth.entropy", 4, 4 }, { "neth.spdcid", 8, 2 },
			{ "neth.dpdcid", 10, 2 }, { "neth.nack_psn", 13, 3 },
			{ "neth.cc_type", 16, 1 }, { "neth.ts", 18, 2 } })
	elseif op == 0xde then
		if not need(16) then return tvb:len() end
		add(t, tvb, off, {
			{ "peth.vendor", 3, 1 }, { "peth.probe_id", 4, 2 },
			{ "peth.spdcid", 8, 2 }, { "peth.dpdcid", 10, 2 },
			{ "peth.ts", 12, 2 } })
	elseif op == 0xd8 then
		if not need(16) then return tvb:len() end
		add(t, tvb, off, {
			{ "erth.op", 0, 2 }, { "erth.vendor", 3, 1 },
			{ "erth.port_mask", 4, 4 }, { "erth.ts", 12, 2 } })
		if bit32.band(tvb(off, 2):uint(), 3) == 2 and off + 52 <= stop then
			t:add(f["xconn.type"], tvb(off + 3, 1))
			add(t, tvb, off + 16, {
				{ "xconn.sport", 0, 2 }, { "xconn.dport", 2, 2 },
				{ "xconn.sqpn", 4, 4 }, { "xconn.dqpn", 8, 4 },
				{ "xconn.isn", 12, 4 }, { "xconn.value", 16, 4 },
				{ "xconn.rwnd", 20, 4 }, { "xconn.mss", 24, 2 },
				{ "xconn.flags", 26, 2 } })
		end
	elseif op == 0xd9 then
		if not need(36) then return tvb:len() end
		add(t, tvb, off, { { "eeth.op", 0, 2 }, { "eeth.ts", 28, 2 } })
	end
	local ti = t:add_le(f.icrc, tvb(stop, ICRC_LEN))
	if mrc10.prefs.check_icrc and ip_src() then
		local good = icrc(tvb) == tvb(stop, ICRC_LEN):le_uint()
		t:add(f["icrc.status"], tvb(stop, ICRC_LEN), good and 1 or 0):set_generated()
		if not good then
			ti:add_proto_expert_info(e_icrc)
		end
	end
	return tvb:len()
end

local registered = 0
local function register_port()
	local udp = DissectorTable.get("udp.port")
	if registered ~= 0 then
		udp:remove(registered, mrc10)
	end
	registered = mrc10.prefs.udp_port
	if registered ~= 0 then
		udp:add(registered, mrc10)
	end
end

function mrc10.prefs_changed()
	if mrc10.prefs.udp_port ~= registered then
		register_port()
	end
end

register_port()
