-- Slot bookkeeping of one coupon, read atomically. KEYS: 1 issued, 2 free, 3 next
-- Every minted slot number (1..next) is either held by an issued entry or on the free list; fewer
-- means a slot number was lost and one unit of stock can no longer be handed out.
return {redis.call('HLEN', KEYS[1]), redis.call('LLEN', KEYS[2]), tonumber(redis.call('GET', KEYS[3]) or '0')}
