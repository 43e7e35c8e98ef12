-- Writes a coupon's metadata. KEYS: 1 meta, 2 issued, 3 next, 4 free
-- ARGV: 1 quantity, 2 opensAt ms, 3 closesAt ms, 4 paused (0/1), 5 version, 6 "fresh" (1 = the coupon
-- is new in MySQL: start with empty state)
-- Returns 1 updated (or already at a newer version), 2 created fresh, 0 state missing (left for
-- the reconciler to rebuild), -1 quantity below the slots already handed out.
-- A coupon new in MySQL has no rows there: whatever Redis holds under its keys was left by an earlier
-- event (on this Redis, under the same key prefix) and goes.
if ARGV[6] == '1' then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4]) end
local exists = redis.call('EXISTS', KEYS[1]) == 1
if not exists and ARGV[6] ~= '1' then return 0 end
if exists then
  -- Writes of two changes can arrive out of order (a raise is written after MySQL's commit, a
  -- lowering before its own): an older version never undoes a newer one.
  if tonumber(redis.call('HGET', KEYS[1], 'version') or '0') > tonumber(ARGV[5]) then
    return 1
  end
  local next = tonumber(redis.call('GET', KEYS[3]) or '0')
  if tonumber(ARGV[1]) < next then return -1 end
else
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
end
redis.call('HSET', KEYS[1], 'quantity', ARGV[1], 'opensAt', ARGV[2], 'closesAt', ARGV[3],
  'paused', ARGV[4], 'version', ARGV[5])
if exists then return 1 end
return 2
