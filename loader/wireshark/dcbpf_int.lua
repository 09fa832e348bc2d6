-- Wireshark/tshark dissector for the dcbpf INT IPv4 option (type 0x1e).
-- Layout and units: docs/int.md (version 1).  Load with
--   tshark -X lua_script:dcbpf_int.lua …     or copy to ~/.local/lib/wireshark/plugins/
-- Filter fields: dcbpf_int, dcbpf_int.echo, dcbpf_int.hops, dcbpf_int.hop.qlen_bytes, …
--
-- Runs on Lua 5.2 (Debian 12's Wireshark) and 5.4 (Wireshark 4.4 and later):
-- no bit32 (gone from 5.4) and no bitwise operators (a syntax error in 5.2),
-- only integer arithmetic on values below 2^32, exact in both.  Fields are
-- added in wire order.  tests/loader/dissector.sh runs it in tshark and, with
-- a stub of the few Wireshark calls it makes, under lua5.2 and lua5.4.

local int = Proto("dcbpf_int", "dcbpf in-band network telemetry")

local OPT_TYPE = 0x1e
local RATES = { [1] = 100, [2] = 200, [3] = 500, [4] = 1000, [5] = 2000, [6] = 2500,
                [7] = 5000, [8] = 10000, [9] = 25000, [10] = 40000, [11] = 50000,
                [12] = 100000, [13] = 200000, [14] = 400000, [15] = 800000 }

local f = int.fields
f.length   = ProtoField.uint8("dcbpf_int.length", "Option length (bytes)")
f.slots    = ProtoField.uint8("dcbpf_int.slots", "Slots")
f.version  = ProtoField.uint8("dcbpf_int.version", "Version")
f.echo     = ProtoField.bool("dcbpf_int.echo", "Echo (stack returning to its sender)")
f.overflow = ProtoField.bool("dcbpf_int.overflow", "Overflow (more hops than slots)")
f.sampled  = ProtoField.bool("dcbpf_int.sampled", "Sampled (the source tags a subset; echoed once)")
f.hops     = ProtoField.uint8("dcbpf_int.hops", "Hops filled")
f.path     = ProtoField.uint8("dcbpf_int.path", "Path id")
f.hop      = ProtoField.uint8("dcbpf_int.hop", "Hop")
f.rate     = ProtoField.uint32("dcbpf_int.hop.rate_mbps", "Port rate (Mbit/s)")
f.qlen     = ProtoField.uint32("dcbpf_int.hop.qlen_bytes", "Queue length (bytes)")
f.ts       = ProtoField.uint32("dcbpf_int.hop.ts_ns", "Switch time (ns, modulo 268 ms)")
f.tx       = ProtoField.uint32("dcbpf_int.hop.tx_bytes", "Port tx bytes (modulo 256 MiB)")
f.bad      = ProtoField.string("dcbpf_int.malformed", "Malformed")

local ip_hdr_len = Field.new("ip.hdr_len")
local ip_version = Field.new("ip.version")

-- floor(v / 2^shift) mod 2^width for 0 <= v < 2^32: exact in doubles (5.2)
-- and integers (5.4); math.floor returns an integer in 5.4.
local function bits(v, shift, width)
	return math.floor(v / 2 ^ shift) % math.floor(2 ^ width)
end

-- A hop word as its two big-endian 32-bit halves: rate 4 | qlen 18 | ts 20 | tx 22.
local function hop_fields(hi, lo)
	return bits(hi, 28, 4), bits(hi, 10, 18),
	       bits(hi, 0, 10) * 1024 + bits(lo, 22, 10), bits(lo, 0, 22)
end

function int.dissector(tvb, pinfo, tree)
	local v, hl = ip_version(), ip_hdr_len()
	if not v or v.value ~= 4 or not hl or hl.value <= 20 then return end
	-- The option, when present, is the first one: right after the base header.
	local off = hl.offset -- ip.hdr_len lives in the IP header's first byte
	local opt = off + 20
	if opt + 4 > tvb:len() or tvb(opt, 1):uint() ~= OPT_TYPE then return end
	-- math.floor: an integer in 5.4 even where TvbRange:uint() hands a float
	local len = math.floor(tvb(opt + 1, 1):uint())
	local b2, b3 = tvb(opt + 2, 1):uint(), tvb(opt + 3, 1):uint()
	local version, flags, hops, path = bits(b2, 5, 3), bits(b2, 2, 3), bits(b3, 4, 4), bits(b3, 0, 4)
	local t = tree:add(int, tvb(opt, math.min(len, tvb:len() - opt)))
	t:add(f.length, tvb(opt + 1, 1), len)
	if len == 4 and opt + 4 <= off + hl.value then
		-- Ethereal's tag-only form: no slots, the path tag in P (docs/ethereal.md)
		t:add(f.version, tvb(opt + 2, 1), version)
		if flags ~= 0 then
			t:add(f.bad, tvb(opt + 2, 1), "tag-only option with echo, overflow or sampled set")
		end
		t:add(f.path, tvb(opt + 3, 1), path)
		if hops ~= 0 then
			t:add(f.bad, tvb(opt + 3, 1), "tag-only option with hops set")
		end
		pinfo.cols.info:append(string.format(" [Ethereal tag %d]", path))
		return
	end
	if len < 12 or len > 36 or (len - 4) % 8 ~= 0 or opt + len > off + hl.value then
		t:add(f.bad, tvb(opt + 1, 1), "option length " .. len .. " is not 4 + 8k (12..36) nor 4")
		return
	end
	local slots = math.floor((len - 4) / 8)
	local echo = bits(b2, 4, 1) ~= 0
	t:add(f.slots, tvb(opt + 1, 1), slots)
	t:add(f.version, tvb(opt + 2, 1), version)
	t:add(f.echo, tvb(opt + 2, 1), echo)
	t:add(f.overflow, tvb(opt + 2, 1), bits(b2, 3, 1) ~= 0)
	t:add(f.sampled, tvb(opt + 2, 1), bits(b2, 2, 1) ~= 0)
	t:add(f.hops, tvb(opt + 3, 1), hops)
	t:add(f.path, tvb(opt + 3, 1), path)
	if hops > slots then
		t:add(f.bad, tvb(opt + 3, 1), "hop pointer " .. hops .. " beyond " .. slots .. " slots")
		hops = slots
	end
	for i = 0, hops - 1 do
		local r = tvb(opt + 4 + 8 * i, 8)
		local rate, qlen, ts, tx = hop_fields(tvb(opt + 4 + 8 * i, 4):uint(),
		                                      tvb(opt + 8 + 8 * i, 4):uint())
		local h = t:add(f.hop, r, i)
		h:add(f.rate, tvb(opt + 4 + 8 * i, 1), RATES[rate] or 0)
		h:add(f.qlen, tvb(opt + 4 + 8 * i, 3), qlen * 32)
		h:add(f.ts, tvb(opt + 6 + 8 * i, 4), ts * 256)
		h:add(f.tx, tvb(opt + 9 + 8 * i, 3), tx * 64)
	end
	pinfo.cols.info:append(string.format(" [INT %s %d/%d hops]",
		echo and "echo" or "data", hops, slots))
end

register_postdissector(int)
