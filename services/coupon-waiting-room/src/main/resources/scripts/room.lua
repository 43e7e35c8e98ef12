-- One zone's queue: one call per join, poll or tick, atomic in the zone's hash slot.
-- KEYS: 1 queue (zset user -> first arrival ms), 2 admitted (zset user -> admission ms),
--       3 seen (zset user -> last call ms), 4 meta (hash), 5 sold-out coupons (set),
--       6 closed coupons (set), 7 eta (hash user -> "predictedAdmissionMs:joinedMs")
-- ARGV: 1 op (join|poll|tick), 2 user, 3 coupon, 4 default budget/min,
--       5 default mode (auto|on|off), 6 sub-window ms, 7 entry ttl ms
-- Every time is the Redis node's (TIME), never a pod's: the queue's order is the order of arrival
-- whatever the clocks of the pods that call it.
-- Returns {state, position, etaMs, admittedAt, admittedNow, toldSoldOut, predictedAt, joinedAt,
--          active, queueLength, joined}
local q, adm, seen, meta, soldout, closed, eta = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local op, user, coupon = ARGV[1], ARGV[2], ARGV[3]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local W = tonumber(ARGV[6])
local ttl = tonumber(ARGV[7])

local m = redis.call('HMGET', meta, 'budget', 'mode', 'paused', 'active', 'win', 'prequeue', 'opensAt', 'mi', 'c', 'p')
local budget = tonumber(m[1]) or tonumber(ARGV[4])
local mode = m[2] or ARGV[5]
local paused = m[3] == '1'
local active = m[4] == '1'
local win = tonumber(m[5]) or 0
local prequeue = m[6] == '1'
local opensAt = tonumber(m[7]) or 0
local quota = math.max(1, math.floor(budget * W / 60000))
local w = math.floor(now / W)

-- admissions of the last minute, sliding: the previous minute's count weighted by its overlap
local minute = math.floor(now / 60000)
local mi = tonumber(m[8]) or minute
local c = tonumber(m[9]) or 0
local p = tonumber(m[10]) or 0
if minute ~= mi then
  if minute == mi + 1 then p = c else p = 0 end
  c = 0
  mi = minute
end

if mode == 'off' then active = false end
if mode == 'on' and not active then active = true; win = w end

-- admit the head of the queue: one sub-window's quota per boundary passed (at most two, so
-- a zone nobody called for a while does not flood the core)
local moved = 0
if active and not paused and not prequeue and w > win then
  local n = math.min(w - win, 2) * quota
  local ids = redis.call('ZRANGE', q, 0, n - 1)
  for i = 1, #ids, 1000 do
    local last = math.min(i + 999, #ids)
    local scored, members = {}, {}
    for j = i, last do
      scored[#scored + 1] = now
      scored[#scored + 1] = ids[j]
      members[#members + 1] = ids[j]
    end
    redis.call('ZADD', adm, unpack(scored))
    redis.call('ZREM', q, unpack(members))
  end
  moved = #ids
  c = c + moved
  win = w
end

local state, pos, etaMs, admittedAt, told, predicted, joinedAt, joined = 'NONE', 0, -1, 0, 0, -1, -1, 0
if op ~= 'tick' then
  if redis.call('SISMEMBER', soldout, coupon) == 1 or redis.call('SISMEMBER', closed, coupon) == 1 then
    state = redis.call('SISMEMBER', soldout, coupon) == 1 and 'SOLD_OUT' or 'CLOSED'
    local removed = redis.call('ZREM', q, user) + redis.call('ZREM', adm, user)
    redis.call('ZREM', seen, user)
    redis.call('HDEL', eta, user)
    if removed > 0 and state == 'SOLD_OUT' then told = 1 end
  else
    local a = redis.call('ZSCORE', adm, user)
    if a then
      a = tonumber(a)
      if now >= a + ttl then
        -- the admission is over; the user may join again (at the back)
        redis.call('ZREM', adm, user)
        redis.call('HDEL', eta, user)
        a = nil
      else
        state = 'ADMITTED'
        admittedAt = a
        local pr = redis.call('HGET', eta, user)
        if pr then
          local sep = string.find(pr, ':')
          predicted = tonumber(string.sub(pr, 1, sep - 1))
          joinedAt = tonumber(string.sub(pr, sep + 1))
          redis.call('HDEL', eta, user)
        end
      end
    end
    if not a then
      local r = redis.call('ZRANK', q, user)
      if r == false and op == 'join' then
        local recent = p * (1 - (now % 60000) / 60000) + c
        if mode == 'off' or (mode == 'auto' and not active and not prequeue and recent < budget) then
          redis.call('ZADD', adm, now, user)
          c = c + 1
          moved = moved + 1
          state = 'ADMITTED'
          admittedAt = now
        else
          if not active then active = true; win = w end
          redis.call('ZADD', q, 'NX', now, user)
          r = redis.call('ZRANK', q, user)
        end
        joined = 1
      end
      if r ~= false then
        pos = r + 1
        if paused then
          state = 'PAUSED'
        else
          state = 'QUEUED'
          local base = (w + 1) * W
          if prequeue and opensAt > now then base = (math.floor(opensAt / W) + 1) * W end
          etaMs = base - now + (math.ceil(pos / quota) - 1) * W
          if joined == 1 then redis.call('HSET', eta, user, (now + etaMs) .. ':' .. now) end
        end
      end
    end
    if state ~= 'NONE' then redis.call('ZADD', seen, now, user) end
  end
end

local qlen = redis.call('ZCARD', q)
if active and mode == 'auto' and not prequeue and qlen == 0 then active = false end
local flag = active and '1' or '0'
-- most polls change none of these: a write would only cost the AOF and the replica
if m[4] ~= flag or tonumber(m[5]) ~= win or tonumber(m[8]) ~= mi or tonumber(m[9]) ~= c or tonumber(m[10]) ~= p then
  redis.call('HSET', meta, 'active', flag, 'win', win, 'mi', mi, 'c', c, 'p', p)
end
return {state, pos, etaMs, admittedAt, moved, told, predicted, joinedAt, active and 1 or 0, qlen, joined}
