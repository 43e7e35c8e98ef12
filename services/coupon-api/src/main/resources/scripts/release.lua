-- Releases one reservation (compensation after a failed send, or a stale reservation found by the
-- reconciler): the user is removed and the slot goes back to the free list, is dropped, or is held.
-- KEYS: 1 meta, 2 issued, 3 free
-- ARGV: 1 userId, 2 the reservation as the caller read it ("slot:reservedAtMs[:resentAtMs]"), 3 mode:
--       "1" slot back to the free list, "0" slot dropped (MySQL already uses it), "hold" slot kept out
--       of circulation under a placeholder entry (ARGV 4) that still counts as issued: the send may
--       have landed, so neither the unit nor the slot number may be handed out again until the
--       reconciler has seen MySQL (a reused slot would collide there).
-- Only that very reservation is released: a 409 re-send stamps it again (issue.lua), so a release
-- decided before the re-send does nothing, and neither the user told "you hold it" nor another user
-- handed the slot loses out.
-- Returns 1 when released, 0 when there was nothing (or something else) to release.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[2], ARGV[1])
if current ~= ARGV[2] then return 0 end
local slot = string.sub(current, 1, string.find(current, ':', 1, true) - 1)
redis.call('HDEL', KEYS[2], ARGV[1])
-- meta 'held' counts placeholders, so the issue script can tell "held" from "sold out".
if string.byte(ARGV[1], 1) == 31 then redis.call('HINCRBY', KEYS[1], 'held', -1) end
if ARGV[3] == '1' then
  redis.call('RPUSH', KEYS[3], slot)
elseif ARGV[3] == 'hold' then
  if redis.call('HSETNX', KEYS[2], ARGV[4], current) == 1 then redis.call('HINCRBY', KEYS[1], 'held', 1) end
end
return 1
