-- Releases one reservation (compensation after a failed send, or a stale reservation found by the
-- reconciler): the user is removed and the slot goes back to the free list.
-- KEYS: 1 meta, 2 issued, 3 free
-- ARGV: 1 userId, 2 slot, 3 "1" to put the slot back on the free list (0 when MySQL already uses it)
-- Returns 1 when released, 0 when there was nothing (or something else) to release.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[2], ARGV[1])
if not current then return 0 end
local sep = string.find(current, ':', 1, true)
if string.sub(current, 1, sep - 1) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] == '1' then redis.call('RPUSH', KEYS[3], ARGV[2]) end
return 1
