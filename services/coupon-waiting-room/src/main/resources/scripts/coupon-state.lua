-- A coupon's state as the API reported it last: in the zone's sold-out set, in its closed set, or in
-- neither (a sell-out that ended as held units came back, a closing an admin moved, a coupon
-- registered again). KEYS: 1 sold-out coupons (set), 2 closed coupons (set). ARGV: 1 coupon, 2 state.
local coupon, state = ARGV[1], ARGV[2]
if state == 'SOLD_OUT' then redis.call('SADD', KEYS[1], coupon) else redis.call('SREM', KEYS[1], coupon) end
if state == 'CLOSED' then redis.call('SADD', KEYS[2], coupon) else redis.call('SREM', KEYS[2], coupon) end
return 0
