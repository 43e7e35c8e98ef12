-- Claims a zone's opening for one pod, so that no two pods shuffle its pre-queue: 1 when the
-- pre-queue is still on and no other pod's claim is younger than ARGV[1] ms (a claim that old is a
-- pod that died mid-opening), by the Redis node's clock. KEYS: 1 meta (hash).
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local m = redis.call('HMGET', KEYS[1], 'prequeue', 'opening')
if m[1] ~= '1' then return 0 end
local since = tonumber(m[2])
if since and now - since < tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'opening', now)
return 1
