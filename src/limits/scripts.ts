// The Lua scripts Redis runs for the cluster-wide limits. Each runs
// atomically (Redis executes one script at a time), so racing requests from
// any number of nodes read and write one count in turn: a read-then-write
// across two round trips, which racers could slip through, never happens.
//
// The windows are those of the local tables, bucket for bucket, so that a
// limit answers the same whether one node or many count it:
//
//   account rate limit, KEYS[1] = sg:rate:<account id>
//     HASH  <Unix second> -> requests accepted in that second
//     a bucket counts while now - second < 60 (http/rate-limit.ts);
//     TTL 61 s from the last accepted request.
//
//   failure throttles, KEYS[1] = sg:fail:<table>:<32 hex digits of the key>
//     HASH  <tick = floor(ms / 5000)> -> failures counted in that tick
//     a bucket counts while tick - bucket < 12 (http/failure-limiter.ts);
//     TTL 65 s from the last counted failure.
//
//   live nodes, KEYS[1] = sg:nodes
//     ZSET  <node name>:<random> -> last heartbeat (ms), one member per
//     process (WorkerInput.instance); members older than 15 s are
//     dropped; the count gives each node its share when Redis goes away.
//
// Times come from the calling node's clock (ARGV), as the local tables take
// them: nodes are expected to agree within a second (NTP). A bucket a whole
// window away on either side is dropped: one from the future (the clock
// stepped back) would otherwise count until the clock caught up with it.
import { createHash } from 'node:crypto';

export interface Script {
  name: string;
  lua: string;
  /** SHA-1 of `lua`: EVALSHA sends this instead of the text. */
  sha: string;
}

function script(name: string, lua: string): Script {
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** ARGV: now (Unix seconds), limit, window (seconds). Returns {allowed 0|1, counted, reset seconds}. */
export const RATE = script('rate', `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local flat = redis.call('HGETALL', KEYS[1])
local total = 0
local oldest = nil
for i = 1, #flat, 2 do
  local s = tonumber(flat[i])
  if now - s >= window or s - now >= window then
    redis.call('HDEL', KEYS[1], flat[i])
  else
    total = total + tonumber(flat[i + 1])
    if oldest == nil or s < oldest then oldest = s end
  end
end
local allowed = 0
if total < limit then
  allowed = 1
  total = total + 1
  redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
  redis.call('EXPIRE', KEYS[1], window + 1)
  if oldest == nil or now < oldest then oldest = now end
end
local reset = window
if oldest ~= nil then reset = math.max(1, math.min(window, oldest + window - now)) end
return {allowed, total, reset}
`);

/**
 * ARGV: op, now (ms), then
 *   hit:     limit             -> {allowed 0|1, counted, retry-after seconds}
 *   count:                     -> counted
 *   release: at (ms)           -> 0
 */
export const FAILURES = script('failures', `
local TICK = 5000
local BUCKETS = 12
local op = ARGV[1]
local nowMs = tonumber(ARGV[2])
local tick = math.floor(nowMs / TICK)
local flat = redis.call('HGETALL', KEYS[1])
local total = 0
local oldest = nil
local buckets = {}
for i = 1, #flat, 2 do
  local t = tonumber(flat[i])
  if tick - t >= BUCKETS or t - tick >= BUCKETS then
    redis.call('HDEL', KEYS[1], flat[i])
  else
    local n = tonumber(flat[i + 1])
    buckets[t] = n
    total = total + n
    if n > 0 and (oldest == nil or t < oldest) then oldest = t end
  end
end
if op == 'count' then return total end
if op == 'release' then
  local at = math.floor(tonumber(ARGV[3]) / TICK)
  local n = buckets[at] or 0
  if tick - at < BUCKETS and n > 0 then
    if n == 1 then redis.call('HDEL', KEYS[1], tostring(at)) else redis.call('HINCRBY', KEYS[1], tostring(at), -1) end
  end
  return 0
end
local allowed = 0
if total < tonumber(ARGV[3]) then
  allowed = 1
  redis.call('HINCRBY', KEYS[1], tostring(tick), 1)
  redis.call('PEXPIRE', KEYS[1], TICK * (BUCKETS + 1))
  total = total + 1
  if oldest == nil or tick < oldest then oldest = tick end
end
local retry = 1
if oldest ~= nil then retry = math.max(1, math.ceil(((oldest + BUCKETS) * TICK - nowMs) / 1000)) end
return {allowed, total, retry}
`);

/** ARGV: member, now (ms), alive (ms). Returns the members seen within `alive`. */
export const HEARTBEAT = script('heartbeat', `
local now = tonumber(ARGV[2])
local alive = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - alive)
redis.call('PEXPIRE', KEYS[1], alive)
return redis.call('ZCARD', KEYS[1])
`);
