"""Lua scripts of the Redis store.

Each script is one atomic step and one round trip (EVALSHA). Scripts only touch the keys
passed in KEYS; the commit's KEYS are the game's own keys (one hash tag) plus the global
timer index — on Redis Cluster that index would live in another slot, see
ARCHITECTURE.md principle 5 (a sweeper repairs it from the ``dl`` field of the record).
"""

# KEYS: rec, log, adapter, timers
# ARGV: expected, state, meta, ttl_ms, mode(keep|clear|set), deadline_ms, warn_ms|'', channel,
#       game_id, n_log, presence field|'', presence ms, log entries...
# -> {1, new_version} | {0, current_version} | {-1, 0} (no such game)
COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'v')
if not cur then return {-1, 0} end
cur = tonumber(cur)
if cur ~= tonumber(ARGV[1]) then return {0, cur} end
local new = cur + 1
local gid = ARGV[9]
redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2], 'm', ARGV[3])
local n = tonumber(ARGV[10])
if n > 0 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 13, 12 + n)) end
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], ARGV[11], ARGV[12]) end
local mode = ARGV[5]
local tv = redis.call('HGET', KEYS[1], 'tv')
local dl = false
local wl = false
if mode == 'keep' then
  dl = redis.call('HGET', KEYS[1], 'dl')
  if tv and dl and redis.call('ZSCORE', KEYS[4], gid .. '|' .. tv .. '|w') then
    wl = redis.call('HGET', KEYS[1], 'wl')
  end
elseif mode == 'set' then
  dl = ARGV[6]
  if ARGV[7] ~= '' then wl = ARGV[7] end
end
if tv then redis.call('ZREM', KEYS[4], gid .. '|' .. tv .. '|t', gid .. '|' .. tv .. '|w') end
if dl then
  redis.call('HSET', KEYS[1], 'tv', new, 'dl', dl)
  redis.call('ZADD', KEYS[4], dl, gid .. '|' .. new .. '|t')
  if wl then
    redis.call('HSET', KEYS[1], 'wl', wl)
    redis.call('ZADD', KEYS[4], wl, gid .. '|' .. new .. '|w')
  else
    redis.call('HDEL', KEYS[1], 'wl')
  end
else
  redis.call('HDEL', KEYS[1], 'tv', 'dl', 'wl')
end
local ttl = tonumber(ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PUBLISH', ARGV[8], '{"game_id":"' .. gid .. '","version":' .. new .. '}')
return {1, new}
"""

# KEYS: rec ; ARGV: state, meta, version, ttl_ms -> 1 created | 0 exists
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 's', ARGV[1], 'm', ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
"""

# KEYS: rec, target hash ; ARGV: field, value -> 1 | 0 (no such game)
# Writes a field of a hash that lives as long as the game (presence, adapter data).
HSET_ALIVE = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""

# KEYS: timers ; ARGV: now_ms, limit, lease_ms -> due members
# Turn timers are leased (pushed to now+lease) so a crashed claimer's timer comes back;
# warnings are best effort and removed at once.
CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local lease_until = tonumber(ARGV[1]) + tonumber(ARGV[3])
for _, m in ipairs(due) do
  if string.sub(m, -1) == 'w' then
    redis.call('ZREM', KEYS[1], m)
  else
    redis.call('ZADD', KEYS[1], lease_until, m)
  end
end
return due
"""

# KEYS: key ; ARGV: expected -> 1 deleted | 0
DELETE_IF = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: bucket ; ARGV: capacity, per_ms -> {allowed, wait_ms}
# Uses the server clock so every worker shares one notion of time.
TOKEN_BUCKET = """
local cap = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'n', 't')
local n = tonumber(b[1]) or cap
local ts = tonumber(b[2]) or now
local rate = cap / per
n = math.min(cap, n + math.max(0, now - ts) * rate)
local allowed = 0
local wait = 0
if n >= 1 then
  n = n - 1
  allowed = 1
else
  wait = math.ceil((1 - n) / rate)
end
redis.call('HSET', KEYS[1], 'n', tostring(n), 't', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(per * 2))
return {allowed, wait}
"""

# KEYS: archive, archive_log, live log ; ARGV: record json
ARCHIVE = """
redis.call('SET', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('COPY', KEYS[3], KEYS[2])
  redis.call('PERSIST', KEYS[2])
end
return 1
"""
