-- Adds a MySQL row that Redis does not know (e.g. a send that was compensated but still landed, or
-- a reservation a failover lost after its record was sent): the user is marked issued, the slot
-- leaves the free list, and the slot counter is raised to it when it is behind (a failover that lost
-- writes rolled it back), so the issue script never mints that slot number again.
-- KEYS: 1 meta, 2 issued, 3 free, 4 next. ARGV: 1 userId, 2 slot, 3 reservedAtMs.
-- Returns 1 adopted, 0 nothing to do.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('LREM', KEYS[3], 0, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
if tonumber(redis.call('GET', KEYS[4]) or '0') < tonumber(ARGV[2]) then redis.call('SET', KEYS[4], ARGV[2]) end
return 1
