-- Purges up to ARGV[2] users whose last call is more than ARGV[1] ms ago (by the Redis node's
-- clock, as room.lua scores the calls) from a zone.
-- KEYS: 1 queue, 2 admitted, 3 seen, 4 eta. Chunked by the caller: unpack() has a limit (~8000).
local clock = redis.call('TIME')
local cutoff = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) - tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', cutoff, 'LIMIT', 0, tonumber(ARGV[2]))
if #ids == 0 then return 0 end
redis.call('ZREM', KEYS[1], unpack(ids))
redis.call('ZREM', KEYS[2], unpack(ids))
redis.call('ZREM', KEYS[3], unpack(ids))
redis.call('HDEL', KEYS[4], unpack(ids))
return #ids
