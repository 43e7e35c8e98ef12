-- Adds one chunk of a rebuild (see restore-begin.lua). KEYS: 1 meta, 2 issued, 3 free, 4 rebuild
-- ARGV: 1 token, 2 "free" then free slot numbers, or "issued" then pairs (userId, "slot:reservedAtMs")
-- Returns 1 added, 0 not this rebuild's turn (the state exists, or another rebuild took over).
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('GET', KEYS[4]) ~= ARGV[1] then return 0 end
if ARGV[2] == 'free' then
  for i = 3, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
else
  for i = 3, #ARGV - 1, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
return 1
