-- Adds a MySQL row that Redis does not know (e.g. a send that was compensated but still landed):
-- the user is marked issued and the slot leaves the free list. KEYS: 1 meta, 2 issued, 3 free
-- ARGV: 1 userId, 2 slot, 3 reservedAtMs. Returns 1 adopted, 0 nothing to do.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('LREM', KEYS[3], 0, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
return 1
