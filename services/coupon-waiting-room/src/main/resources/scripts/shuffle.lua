-- Re-scores one chunk of the pre-queue at the opening: ARGV = pairs of (new score, user), only
-- for users still queued (XX). KEYS: 1 queue.
return redis.call('ZADD', KEYS[1], 'XX', unpack(ARGV))
