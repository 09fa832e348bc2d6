-- Run loader/wireshark/dcbpf_int.lua outside Wireshark, under plain lua5.2 or
-- lua5.4, on the frames of a pcap file:
--   lua5.4 tests/loader/dissector_stub.lua DISSECTOR.lua CAPTURE.pcap
-- Prints every field the dissector adds as "FRAME FIELD VALUE POS SIZE"
-- (string fields as "-"), in the order it adds them, like the lines
-- tests/tools/intpcap expects.  Only the Wireshark calls the dissector makes
-- are stubbed; bit32 is removed first, so a 5.2 run also proves it is unused.
-- Under 5.4 the stub's TvbRange:uint() returns floats, the worst a Wireshark
-- build may hand over: a value that stays a float prints as "1000.0" and fails.
bit32 = nil

local script, capture = arg[1], arg[2]
local lua54 = _VERSION ~= "Lua 5.2"

-- ---- the Wireshark API, as far as the dissector uses it ---------------------
local proto
function Proto(name, desc) proto = { name = name, desc = desc, fields = {} }; return proto end
local function pf(kind) return function(abbr, name) return { abbr = abbr, kind = kind, name = name } end end
ProtoField = { uint8 = pf("uint"), uint16 = pf("uint"), uint32 = pf("uint"),
               bool = pf("bool"), string = pf("string") }
local ipfields = {}
Field = { new = function(name) return function() return ipfields[name] end end }
local registered
function register_postdissector(p) registered = p end

local frame_no, data

local function range(off, len)
	assert(off >= 0 and len >= 1 and off + len <= #data,
		string.format("frame %d: range %d+%d outside the %d-byte frame", frame_no, off, len, #data))
	return {
		off = off, len = len,
		uint = function(self)
			assert(self.len <= 4, "uint() of more than 4 bytes")
			local v = 0
			for i = 1, self.len do v = v * 256 + data:byte(self.off + i) end
			return lua54 and v + 0.0 or v
		end,
	}
end

local tvb = setmetatable({ len = function() return #data end },
	{ __call = function(_, off, len) return range(off, len) end })

local function item()
	return {
		add = function(_, field, r, value)
			if field == proto then return item() end
			assert(field and field.abbr, "add() of an unknown field")
			local shown
			if field.kind == "bool" then
				assert(type(value) == "boolean", field.abbr .. ": not a boolean")
				shown = value and "1" or "0"
			elseif field.kind == "string" then
				assert(type(value) == "string", field.abbr .. ": not a string")
				shown = "-"
			else
				assert(type(value) == "number" and value >= 0, field.abbr .. ": not a number >= 0")
				shown = tostring(value)
			end
			print(string.format("%d %s %s %d %d", frame_no, field.abbr, shown, r.off, r.len))
			return item()
		end,
	}
end

local pinfo = { cols = { info = { append = function(_, s) assert(type(s) == "string") end } } }

-- ---- load the dissector, read the capture ----------------------------------------
dofile(script)
assert(registered == proto, "the dissector did not register itself as a postdissector")

local f = assert(io.open(capture, "rb"))
local pcap = f:read("*a")
f:close()
local function le32(s, at)
	local a, b, c, d = s:byte(at, at + 3)
	return a + b * 256 + c * 65536 + d * 16777216
end
assert(le32(pcap, 1) == 0xa1b2c3d4, "not a little-endian pcap file")
local at = 25
frame_no = 0
while at + 16 <= #pcap do
	local caplen = le32(pcap, at + 8)
	data = pcap:sub(at + 16, at + 15 + caplen)
	at = at + 16 + caplen
	frame_no = frame_no + 1
	-- what Wireshark's IP dissector would have put in ip.version, ip.hdr_len
	local b = data:byte(15)
	ipfields["ip.version"] = { value = math.floor(b / 16), offset = 14 }
	ipfields["ip.hdr_len"] = { value = (b % 16) * 4, offset = 14 }
	registered.dissector(tvb, pinfo, item())
end
