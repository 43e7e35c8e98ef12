-- Starts rebuilding a coupon's lost state from MySQL rows, which restore-chunk.lua then adds in
-- bounded calls (one call for a million rows would outlast Lua's time limit and block the node) and
-- restore-end.lua completes by writing meta last: until then the issue script keeps answering
-- "state missing", and nothing else writes the state. Only runs when meta is absent.
-- KEYS: 1 meta, 2 issued, 3 next, 4 free, 5 rebuild (the token of the rebuild under way)
-- ARGV: 1 token, 2 its time to live in ms
-- A second rebuild (another instance after the lease lapsed) replaces the token and starts over: the
-- first one's remaining calls do nothing, so no row or free slot is added twice.
-- Returns 1 started, 0 the state exists.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SET', KEYS[5], ARGV[1], 'PX', ARGV[2])
return 1
