-- Decides one issuance atomically. All keys share the hash slot {coupon:<id>}.
-- KEYS: 1 meta (hash), 2 issued (hash user -> "slot:reservedAtMs"), 3 next (counter), 4 free (list),
--       5 gate (the waiting room's, see EntryGate: exists while the coupon's queue is active)
-- ARGV: 1 userId, 2 deadlineMs (the caller has given up after it), 3 "1" when the request carries
--       an entry token admitting this user to this coupon
-- Returns {code, slot, remaining, reservedAtMs}; code 1 accepted, -1 state missing, -2 not open,
-- -3 closed, -4 paused, -5 duplicate, -6 sold out, -7 no stock free but some held (see release.lua):
-- not sold out yet, as a held unit comes back when its send turns out not to have landed;
-- -8 past the deadline: a call replayed after its caller was answered (a client re-sending its
-- buffered commands after a failover) must not reserve for a user who was told nothing was;
-- -9 the gate is on and the request has no valid entry token.
-- A duplicate (-5) carries the user's existing reservation: its slot and reservedAtMs. The API sends
-- that reservation again before answering 409, so it is stamped "slot:reservedAtMs:resentAtMs": a
-- release that read it before (release.lua compares the whole value) no longer matches, and the
-- reconciler counts staleness from the re-send.
local meta = redis.call('HMGET', KEYS[1], 'quantity', 'opensAt', 'closesAt', 'paused', 'held')
-- Missing state is never fresh stock: it was lost and must be rebuilt from MySQL first.
if not meta[1] then return {-1, 0, 0, 0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now > tonumber(ARGV[2]) then return {-8, 0, 0, now} end
if meta[4] == '1' then return {-4, 0, 0, now} end
if now < tonumber(meta[2]) then return {-2, 0, 0, now} end
if now >= tonumber(meta[3]) then return {-3, 0, 0, now} end
local mine = redis.call('HGET', KEYS[2], ARGV[1])
if mine then
  local sep = string.find(mine, ':', 1, true)
  local slot = string.sub(mine, 1, sep - 1)
  local resent = string.find(mine, ':', sep + 1, true)
  local reservedAt = string.sub(mine, sep + 1, resent and resent - 1 or nil)
  redis.call('HSET', KEYS[2], ARGV[1], slot .. ':' .. reservedAt .. ':' .. now)
  return {-5, tonumber(slot), 0, tonumber(reservedAt)}
end
local quantity = tonumber(meta[1])
local used = redis.call('HLEN', KEYS[2])
-- Out of stock: "held" (-7) while a held unit may still come back, else sold out (-6).
local function exhausted()
  if tonumber(meta[5] or '0') > 0 then return {-7, 0, 0, now} end
  return {-6, 0, 0, now}
end
if used >= quantity then return exhausted() end
if ARGV[3] ~= '1' and redis.call('EXISTS', KEYS[5]) == 1 then return {-9, 0, 0, now} end
-- Released slots first, so slot numbers stay within 1..quantity.
local slot = redis.call('LPOP', KEYS[4])
if slot then
  slot = tonumber(slot)
else
  local next = tonumber(redis.call('GET', KEYS[3]) or '0')
  -- Every slot number minted, yet fewer reservations than units: a slot is out of both the hash
  -- and the free list (a user whose ambiguous send landed under an earlier slot, until the
  -- reconciler repoints them). That unit comes back: held, not sold out.
  if next >= quantity then return {-7, 0, 0, now} end
  slot = redis.call('INCR', KEYS[3])
end
redis.call('HSET', KEYS[2], ARGV[1], slot .. ':' .. now)
return {1, slot, quantity - used - 1, now}
