-- Wireshark/tshark dissector for the dcbpf INT IPv4 option (type 0x1e).
-- Layout and units: docs/int.md (version 1).  Load with
--   tshark -X lua_script:dcbpf_int.lua …     or copy to ~/.local/lib/wireshark/plugins/
-- Filter fields: dcbpf_int, dcbpf_int.echo, dcbpf_int.hops, dcbpf_int.hop.qlen_bytes, …

local int = Proto("dcbpf_int", "dcbpf in-band network telemetry")

local OPT_TYPE = 0x1e
local RATES = { [1] = 100, [2] = 200, [3] = 500, [4] = 1000, [5] = 2000, [6] = 2500,
                [7] = 5000, [8] = 10000, [9] = 25000, [10] = 40000, [11] = 50000,
                [12] = 100000, [13] = 200000, [14] = 400000, [15] = 800000 }

local f = int.fields
f.version  = ProtoField.uint8("dcbpf_int.version", "Version")
f.echo     = ProtoField.bool("dcbpf_int.echo", "Echo (stack returning to its sender)")
f.overflow = ProtoField.bool("dcbpf_int.overflow", "Overflow (more hops than slots)")
f.slots    = ProtoField.uint8("dcbpf_int.slots", "Slots")
f.hops     = ProtoField.uint8("dcbpf_int.hops", "Hops filled")
f.path     = ProtoField.uint8("dcbpf_int.path", "Path id")
f.hop      = ProtoField.uint8("dcbpf_int.hop", "Hop")
f.rate     = ProtoField.uint32("dcbpf_int.hop.rate_mbps", "Port rate (Mbit/s)")
f.qlen     = ProtoField.uint32("dcbpf_int.hop.qlen_bytes", "Queue length (bytes)")
f.ts       = ProtoField.uint64("dcbpf_int.hop.ts_ns", "Switch time (ns, modulo 268 ms)")
f.tx       = ProtoField.uint64("dcbpf_int.hop.tx_bytes", "Port tx bytes (modulo 256 MiB)")
f.bad      = ProtoField.string("dcbpf_int.malformed", "Malformed")

local ip_hdr_len = Field.new("ip.hdr_len")
local ip_version = Field.new("ip.version")

-- Bits [shift, shift+width) of a 64-bit word, as a Lua number.
local function bits(w, shift, width)
	return w:rshift(shift):band(UInt64((2 ^ width) - 1)):tonumber()
end

function int.dissector(tvb, pinfo, tree)
	local v, hl = ip_version(), ip_hdr_len()
	if not v or v.value ~= 4 or not hl or hl.value <= 20 then return end
	-- The option, when present, is the first one: right after the base header.
	local off = hl.offset -- ip.hdr_len lives in the IP header's first byte
	local opt = off + 20
	if opt + 4 > tvb:len() or tvb(opt, 1):uint() ~= OPT_TYPE then return end
	local len = tvb(opt + 1, 1):uint()
	local t = tree:add(int, tvb(opt, math.min(len, tvb:len() - opt)))
	if len == 4 and opt + 4 <= off + hl.value then
		-- Ethereal's tag-only form: no slots, the path tag in P (docs/ethereal.md)
		local b2, b3 = tvb(opt + 2, 1):uint(), tvb(opt + 3, 1):uint()
		t:add(f.version, tvb(opt + 2, 1), bit32.rshift(b2, 5))
		t:add(f.path, tvb(opt + 3, 1), bit32.band(b3, 0x0f))
		if bit32.rshift(b3, 4) ~= 0 or bit32.band(b2, 0x18) ~= 0 then
			t:add(f.bad, tvb(opt + 2, 2), "tag-only option with hops or flags set")
		end
		pinfo.cols.info:append(string.format(" [Ethereal tag %d]", bit32.band(b3, 0x0f)))
		return
	end
	if len < 12 or len > 36 or (len - 4) % 8 ~= 0 or opt + len > off + hl.value then
		t:add(f.bad, tvb(opt + 1, 1), "option length " .. len .. " is not 4 + 8k (12..36) nor 4")
		return
	end
	local b2, b3 = tvb(opt + 2, 1):uint(), tvb(opt + 3, 1):uint()
	local slots, hops = (len - 4) / 8, bit32.rshift(b3, 4)
	t:add(f.version, tvb(opt + 2, 1), bit32.rshift(b2, 5))
	t:add(f.echo, tvb(opt + 2, 1), bit32.band(b2, 0x10) ~= 0)
	t:add(f.overflow, tvb(opt + 2, 1), bit32.band(b2, 0x08) ~= 0)
	t:add(f.slots, tvb(opt + 1, 1), slots)
	t:add(f.hops, tvb(opt + 3, 1), hops)
	t:add(f.path, tvb(opt + 3, 1), bit32.band(b3, 0x0f))
	if hops > slots then
		t:add(f.bad, tvb(opt + 3, 1), "hop pointer " .. hops .. " beyond " .. slots .. " slots")
		hops = slots
	end
	for i = 0, hops - 1 do
		local r = tvb(opt + 4 + 8 * i, 8)
		local w = r:uint64()
		local h = t:add(f.hop, r, i)
		h:add(f.rate, r, RATES[bits(w, 60, 4)] or 0)
		h:add(f.qlen, r, bits(w, 42, 18) * 32)
		h:add(f.ts, r, UInt64(bits(w, 22, 20)) * 256)
		h:add(f.tx, r, UInt64(bits(w, 0, 22)) * 64)
	end
	pinfo.cols.info:append(string.format(" [INT %s %d/%d hops]",
		bit32.band(b2, 0x10) ~= 0 and "echo" or "data", hops, slots))
end

register_postdissector(int)
