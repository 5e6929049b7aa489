"""Lua scripts of the Redis store.

Each script is one atomic step and one round trip (EVALSHA). Every script touches only
the keys passed in KEYS, and the KEYS of one call always share one hash slot (a game's
``{g:<id>}`` keys, or one global key), so every script stays valid on Redis Cluster; the
store's tests record every script call and check this.

Turn timers (ARCHITECTURE.md principle 5): the truth lives in the game's own hash — ``dl``
deadline ms, ``wl`` warning ms (present until the warning is claimed), ``tv`` version the
timers are armed for, ``lz`` lease of the worker firing the deadline. The global timer
index (a sorted set in its own slot) only holds *hints* ``<game_id>|t`` / ``<game_id>|w`` →
when to look at the game; it is written in the same pipeline as the commit, and whoever
claims a hint re-checks the game's hash (``CLAIM_GAME``) and fires, re-schedules to the true
time or drops it. ``RedisStore.sweep_timers`` re-adds hints a crash or a lost write missed.

Epochs: a game's version numbers never repeat for two different states. A
commit acknowledged by a master that dies before its replica has it is lost with its
version number, which clients may have seen; the next commit on the promoted replica
would reuse that number for another state. So every record remembers which master wrote
it (``ri``: the first 8 characters of that master's replication id, which changes when a
replica is promoted and when a master restarts); the first script of a game under
another master renumbers the record (``adopt``): ``v`` and ``tv`` move up by
``EPOCH_GAP`` (one million: version ``e * 10**6 + n`` is commit ``n`` of epoch ``e``)
above any number the old master can have handed out, and ``pv`` keeps the number it had,
so a caller that decided on exactly that state may still commit (answer 3 of COMMIT).
The scripts that adopt are those that write a version or hand one out to be announced or
fired (COMMIT, VERSION — the change feed's resync after a failover asks it for every
listened game —, CLAIM_GAME, TIMER_DONE, RENUMBERED_FROM), not the plain load: a game is
renumbered by its first commit, claim or version read under the new master, and a load
before that shows the old number with the old state (a commit made on it is renumbered
then). Why not the load too: ``INFO replication`` would cost a script about a third of a
load's Redis CPU (docs/benchmarks/hotpath.md), and every GET of a view loads.

Submissions: every commit carries an id, kept with the last ``SUBMISSIONS``
commits' versions in the record (``sb``: `` <id>:<version>`` entries, newest last). A
retry whose first try was applied (its reply lost) finds its id and gets the version it
got, instead of a false conflict.
"""

from core.store.base import EPOCH_GAP, SUBMISSIONS

# The record as the master running the script numbers it: returns the version (a number),
# or nil when there is no such game. Inlined at the top of every script that reads or
# writes a game's version (KEYS[1] is the game's record).
_adopt = """
local function adopt()
  local f = redis.call('HMGET', KEYS[1], 'v', 'ri', 'tv')
  if not f[1] then return nil end
  local info = redis.call('INFO', 'replication')
  local tag = string.sub(string.match(info, 'master_replid:(%w+)') or '', 1, 8)
  local v = tonumber(f[1])
  if f[2] == tag then return v end
  if f[2] then
    v = v + EPOCH_GAP
    redis.call('HSET', KEYS[1], 'v', v, 'ri', tag, 'pv', f[1])
    if f[3] then redis.call('HSET', KEYS[1], 'tv', tonumber(f[3]) + EPOCH_GAP) end
  else
    redis.call('HSET', KEYS[1], 'ri', tag)
  end
  return v
end
""".replace("EPOCH_GAP", str(EPOCH_GAP))

# The replication id tag of the master running the script (CREATE: a new record's ``ri``).
_tag = """
local function master_tag()
  local info = redis.call('INFO', 'replication')
  return string.sub(string.match(info, 'master_replid:(%w+)') or '', 1, 8)
end
"""

# KEYS: rec, log, adapter (one game: one slot)
# ARGV: expected, state, meta, ttl_ms, mode(keep|clear|set), deadline_ms, warn_ms|'', channel,
#       game_id, n_log, presence field|'', presence ms, submission id, publish (1|0),
#       log entries...
# -> {1, new_version} | {0, current_version} | {-1, 0} (no such game)
#    | {2, version} this submission was committed already (a retry): the version it got
#    | {3, current_version} renumbered from `expected` (a new master) with no commit since:
#      the caller decided on this very state; it may commit again at `current_version`
# The deadline is written into the record; the index hint is the client's business.
# publish 0: the caller publishes the change itself, after a replica confirmed it (WAIT).
# A retry's answer 2 refreshes the TTL: a write, so a WAIT after it covers the first try.
COMMIT = (
    _adopt
    + """
local cur = adopt()
if not cur then return {-1, 0} end
local sid = ARGV[13]
if cur ~= tonumber(ARGV[1]) then
  local sb = redis.call('HGET', KEYS[1], 'sb')
  if sb and sid ~= '' then
    local at = string.find(sb, ' ' .. sid .. ':', 1, true)
    if at then
      redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
      return {2, tonumber(string.match(sb, '^(%d+)', at + #sid + 2))}
    end
  end
  if redis.call('HGET', KEYS[1], 'pv') == ARGV[1] then return {3, cur} end
  return {0, cur}
end
local new = cur + 1
local gid = ARGV[9]
if sid ~= '' then
  local sb = (redis.call('HGET', KEYS[1], 'sb') or '') .. ' ' .. sid .. ':' .. new
  local _, n = string.gsub(sb, ' ', ' ')
  if n > SUBMISSIONS then sb = string.sub(sb, (string.find(sb, ' ', 2, true))) end
  redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2], 'm', ARGV[3], 'sb', sb)
else
  redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2], 'm', ARGV[3])
end
local n = tonumber(ARGV[10])
if n > 0 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 15, 14 + n)) end
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], ARGV[11], ARGV[12]) end
local mode = ARGV[5]
local dl = false
local wl = false
if mode == 'keep' then
  dl = redis.call('HGET', KEYS[1], 'dl')
  wl = redis.call('HGET', KEYS[1], 'wl')
elseif mode == 'set' then
  dl = ARGV[6]
  if ARGV[7] ~= '' then wl = ARGV[7] end
end
redis.call('HDEL', KEYS[1], 'lz', 'pv')
if dl then
  redis.call('HSET', KEYS[1], 'tv', new, 'dl', dl)
  if wl then
    redis.call('HSET', KEYS[1], 'wl', wl)
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
if ARGV[14] == '1' then
  redis.call('PUBLISH', ARGV[8], '{"game_id":"' .. gid .. '","version":' .. new .. '}')
end
return {1, new}
""".replace("SUBMISSIONS", str(SUBMISSIONS))
)

# KEYS: rec ; ARGV: submission id -> the version its commit got | false (not among the
# record's last SUBMISSIONS commits, or no such game)
SUBMITTED = """
local sb = redis.call('HGET', KEYS[1], 'sb')
if not sb then return false end
local at = string.find(sb, ' ' .. ARGV[1] .. ':', 1, true)
if not at then return false end
return tonumber(string.match(sb, '^(%d+)', at + #ARGV[1] + 2))
"""

# KEYS: rec -> the version the game had before a new master renumbered it (``pv``, kept
# until the next commit) | false
RENUMBERED_FROM = (
    _adopt
    + """
if not adopt() then return false end
return tonumber(redis.call('HGET', KEYS[1], 'pv'))
"""
)

# KEYS: rec -> the game's version | false (no such game)
VERSION = (
    _adopt
    + """
local v = adopt()
if not v then return false end
return v
"""
)

# KEYS: rec ; ARGV: cached version|'', cached byte length of s, of m
# -> false (no such game) | {1, every field} | {0, every field but s and m}
# The worker's cached state and meta are still those of the record (same version, same
# lengths: a version's state and meta never change): 0, and the big fields stay in Redis.
LOAD_CACHED = """
local all = redis.call('HGETALL', KEYS[1])
local v, ls, lm = nil, -1, -1
for i = 1, #all, 2 do
  local f = all[i]
  if f == 'v' then v = all[i + 1]
  elseif f == 's' then ls = #all[i + 1]
  elseif f == 'm' then lm = #all[i + 1] end
end
if not v then return false end
if v ~= ARGV[1] or ls ~= tonumber(ARGV[2]) or lm ~= tonumber(ARGV[3]) then
  return {1, all}
end
local out = {}
for i = 1, #all, 2 do
  local f = all[i]
  if f ~= 's' and f ~= 'm' then
    out[#out + 1] = f
    out[#out + 1] = all[i + 1]
  end
end
return {0, out}
"""

# KEYS: rec ; ARGV: state, meta, version, ttl_ms, deadline_ms|'' -> 1 created | 0 exists
# A deadline is armed at the created version (a lobby's countdown or expiry), as COMMIT does.
# A record that is exactly this one, unchanged since (a retry whose first reply was lost:
# game ids are random, and the meta names its creation time), counts as created.
CREATE = (
    _tag
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then
  local f = redis.call('HMGET', KEYS[1], 'v', 's', 'm', 'dl')
  local same = f[1] == ARGV[3] and f[2] == ARGV[1] and f[3] == ARGV[2]
  if same and (f[4] or '') == (ARGV[5] or '') then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 's', ARGV[1], 'm', ARGV[2], 'ri', master_tag())
if ARGV[5] and ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'dl', ARGV[5], 'tv', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
"""
)

# KEYS: rec, target hash ; ARGV: field, value -> 1 | 0 (no such game)
# Writes a field of a hash that lives as long as the game (presence, adapter data).
HSET_ALIVE = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""

# KEYS: timers ; ARGV: now_ms, limit, lease_until, turns (claim|peek|skip),
#       warnings (claim|skip) -> due members (at most `limit`, of the kinds asked for)
# First step of a claim, on the index alone: due turn hints are pushed to the lease's end
# (so other pollers skip them while this worker checks the games), due warning hints are
# removed (a warning is best effort: once at most). ``peek`` hands out due turn hints
# without moving them: a fallback poller (ServiceConfig.timer_role) looks at them, and
# only the game's own lease decides (CLAIM_GAME). Kinds that are skipped stay in the index
# for another poller; the scan pages past them (at most 10 pages of `limit`).
CLAIM_DUE = """
local limit = tonumber(ARGV[2])
local turns, warns = ARGV[4] or 'claim', ARGV[5] or 'claim'
local out = {}
local offset = 0
for _ = 1, 10 do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', offset, limit)
  local kept = 0
  for _, m in ipairs(due) do
    if #out >= limit then return out end
    if string.sub(m, -1) == 'w' then
      if warns == 'claim' then
        redis.call('ZREM', KEYS[1], m)
        out[#out + 1] = m
      else
        kept = kept + 1
      end
    elseif turns == 'claim' then
      redis.call('ZADD', KEYS[1], ARGV[3], m)
      out[#out + 1] = m
    else
      kept = kept + 1
      if turns == 'peek' then out[#out + 1] = m end
    end
  end
  if #due < limit or #out >= limit then return out end
  offset = offset + kept
end
return out
"""

# KEYS: rec (one game) ; ARGV: kind (t|w), now_ms, lease_until, overdue_before|''
# -> {1, armed_version} fire | {2, due_ms} not yet (re-schedule the hint) | {0, 0} nothing
#    | {3, deadline} a fallback poller's turn that is not overdue enough (leave it alone)
# Second step of a claim: the game's own hash decides. A turn deadline is leased in the
# hash (``lz``), so only one worker fires it until the lease runs out, whatever the index
# says; a warning is claimed by deleting ``wl``, so it is handed out once.
CLAIM_GAME = (
    _adopt
    + """
if not adopt() then return {0, 0} end
local now = tonumber(ARGV[2])
local tv = tonumber(redis.call('HGET', KEYS[1], 'tv'))
if ARGV[1] == 'w' then
  local wl = tonumber(redis.call('HGET', KEYS[1], 'wl'))
  if not wl or not tv then return {0, 0} end
  if wl > now then return {2, wl} end
  redis.call('HDEL', KEYS[1], 'wl')
  return {1, tv}
end
local dl = tonumber(redis.call('HGET', KEYS[1], 'dl'))
if not dl or not tv then return {0, 0} end
if dl > now then return {2, dl} end
if ARGV[4] and ARGV[4] ~= '' and dl > tonumber(ARGV[4]) then return {3, dl} end
local lz = tonumber(redis.call('HGET', KEYS[1], 'lz'))
if lz and lz > now then return {2, lz} end
redis.call('HSET', KEYS[1], 'lz', ARGV[3])
return {1, tv}
"""
)

# KEYS: rec (one game) ; ARGV: deadline_ms, warn_ms -> 1 armed | 0 (another deadline now)
# Another warning before the same deadline (a turn warns more than once): armed in the
# record only while the deadline it was meant for is still the game's, so a warning never
# outlives its turn; it is then claimed like the commit's own (CLAIM_GAME deletes ``wl``).
ARM_WARNING = """
local dl = tonumber(redis.call('HGET', KEYS[1], 'dl'))
if not dl or dl ~= tonumber(ARGV[1]) or not redis.call('HGET', KEYS[1], 'tv') then return 0 end
redis.call('HSET', KEYS[1], 'wl', ARGV[2])
return 1
"""

# KEYS: timers ; ARGV: triples op, member, score...
#   'cas'  member score expected: set the hint to `score` if it is still `expected`
#          (nobody re-armed it meanwhile); score '' removes it instead
#   'nx'   member score: add the hint unless one exists
# Index repairs after a claim or a failed commit: a hint written meanwhile by a commit
# (the truth's own writer) always wins over a repair.
INDEX_FIX = """
local i = 1
while i <= #ARGV do
  local op, m = ARGV[i], ARGV[i + 1]
  if op == 'cas' then
    local cur = redis.call('ZSCORE', KEYS[1], m)
    if cur and tonumber(cur) == tonumber(ARGV[i + 3]) then
      if ARGV[i + 2] == '' then
        redis.call('ZREM', KEYS[1], m)
      else
        redis.call('ZADD', KEYS[1], ARGV[i + 2], m)
      end
    end
    i = i + 4
  else
    redis.call('ZADD', KEYS[1], 'NX', ARGV[i + 2], m)
    i = i + 3
  end
end
return 1
"""

# KEYS: rec ; ARGV: armed version [, lease_until] -> 1 cleared | 0
# The timer armed at that version is handled (game gone, cancelled, closed out): forget it,
# so the sweeper does not bring it back.
# With a lease: a claim whose firing failed (the store went away mid-fire, say) gives its
# lease back instead, so the next poll retries at once rather than when the lease runs
# out. Only the holder's own lease is dropped (another worker may have claimed it since).
TIMER_DONE = (
    _adopt
    + """
if not adopt() then return 0 end
if ARGV[2] then
  if tonumber(redis.call('HGET', KEYS[1], 'lz')) == tonumber(ARGV[2]) then
    redis.call('HDEL', KEYS[1], 'lz')
    return 1
  end
  return 0
end
if tonumber(redis.call('HGET', KEYS[1], 'tv')) == tonumber(ARGV[1]) then
  redis.call('HDEL', KEYS[1], 'dl', 'wl', 'tv', 'lz')
  return 1
end
return 0
"""
)

# KEYS: key ; ARGV: expected -> 1 deleted | 0
DELETE_IF = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# The bot's send budget (ARCHITECTURE principle 9): one bucket for the whole bot and, for
# a group, its chat's bucket, taken together or not at all, each refilled on the server
# clock. A hold (a 429's retry_after) stops every worker for that long. A bulk send (a
# board picture) leaves a reserve of each bucket (a share, one token at least) to urgent
# ones (a turn prompt, a lobby change).
# KEYS: bot bucket, bot hold[, chat bucket, chat hold]
# ARGV: bot rate per ms, bot burst, chat capacity, chat per ms, bulk (0|1), reserve share
# -> {allowed, wait_ms}
SEND_BUDGET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = redis.call('PTTL', KEYS[2])
if wait < 0 then wait = 0 end
if #KEYS > 2 then
  local held = redis.call('PTTL', KEYS[4])
  if held > wait then wait = held end
end
if wait > 0 then return {0, wait} end
local bulk = tonumber(ARGV[5]) == 1
local share = tonumber(ARGV[6])
local brate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'n', 't')
local nb = (tonumber(b[1]) or burst) + math.max(0, now - (tonumber(b[2]) or now)) * brate
nb = math.min(burst, nb)
local needb = 1
if bulk then needb = math.min(burst, 1 + math.max(1, math.floor(share * burst))) end
if nb < needb then wait = math.ceil((needb - nb) / brate) end
local nc = 0
if #KEYS > 2 then
  local ccap = tonumber(ARGV[3])
  local crate = ccap / tonumber(ARGV[4])
  local c = redis.call('HMGET', KEYS[3], 'n', 't')
  nc = (tonumber(c[1]) or ccap) + math.max(0, now - (tonumber(c[2]) or now)) * crate
  nc = math.min(ccap, nc)
  local needc = 1
  if bulk then needc = math.min(ccap, 1 + math.max(1, math.floor(share * ccap))) end
  if nc < needc then wait = math.max(wait, math.ceil((needc - nc) / crate)) end
  if wait == 0 then
    redis.call('HSET', KEYS[3], 'n', tostring(nc - 1), 't', now)
    redis.call('PEXPIRE', KEYS[3], math.ceil(tonumber(ARGV[4]) * 2))
  end
end
if wait > 0 then return {0, math.max(1, wait)} end
redis.call('HSET', KEYS[1], 'n', tostring(nb - 1), 't', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / brate) * 2 + 1000)
return {1, 0}
"""

# KEYS: hold ; ARGV: ms -> 1 (a hold only ever grows: the longest retry_after wins)
SEND_HOLD = """
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', tonumber(ARGV[1]))
end
return 1
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
