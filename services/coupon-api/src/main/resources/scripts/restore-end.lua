-- Completes a rebuild (see restore-begin.lua): the slot counter, then meta, which opens the coupon.
-- KEYS: 1 meta, 2 next, 3 rebuild
-- ARGV: 1 token, 2 quantity, 3 opensAt, 4 closesAt, 5 paused, 6 version, 7 next
-- Returns 1 done, 0 not this rebuild's turn.
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[7])
redis.call('HSET', KEYS[1], 'quantity', ARGV[2], 'opensAt', ARGV[3], 'closesAt', ARGV[4],
  'paused', ARGV[5], 'version', ARGV[6])
redis.call('DEL', KEYS[3])
return 1
