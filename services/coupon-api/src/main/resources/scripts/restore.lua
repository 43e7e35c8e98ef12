-- Rebuilds a coupon's lost state from MySQL rows. Meta is written last, so until then the issue
-- script keeps answering "state missing". Only runs when meta is absent.
-- KEYS: 1 meta, 2 issued, 3 next, 4 free
-- ARGV: 1 quantity, 2 opensAt, 3 closesAt, 4 paused, 5 version, 6 next, 7 free-count,
--       then free-count free slots, then pairs (userId, "slot:reservedAtMs")
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SET', KEYS[3], ARGV[6])
local freeCount = tonumber(ARGV[7])
local i = 8
for _ = 1, freeCount do
  redis.call('RPUSH', KEYS[4], ARGV[i]); i = i + 1
end
while i < #ARGV do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2
end
redis.call('HSET', KEYS[1], 'quantity', ARGV[1], 'opensAt', ARGV[2], 'closesAt', ARGV[3],
  'paused', ARGV[4], 'version', ARGV[5])
return 1
