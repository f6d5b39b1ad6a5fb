/** The login limiter's Lua scripts; login-limiter.ts runs them and names their keys. */

/*
 * One hash per pair (or device), and one per username's account budget; all
 * keys of a username share a hash slot, so each script runs unchanged on a
 * Redis Cluster. Field `failures` counts the failed checks recorded; one field
 * `p:<id>` per check in flight holds the time (ms) after which it no longer
 * counts, so a process that dies mid-check frees its slot.
 *
 * KEYS[1] is the pair's or device's hash, KEYS[2] (when given) the account's.
 * A locked account answers first, so a login past its budget reaches no
 * password check. A check is admitted only while, in every key, recorded
 * failures plus checks in flight stay under that key's limit: however many
 * attempts arrive at once, from however many addresses, no more than the limit
 * can reach the password check before the lock, and a right password is refused
 * only once that many failures are recorded. Attempts beyond the free slots are
 * told to wait ('busy') for the ones in flight.
 *
 * A pair key left by the previous limiter (a plain counter) is read as failures.
 */
export const ADMIT = `
local now, id, slotMs = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local window = ARGV[4]
local function state(key)
  local failures, inFlight = 0, 0
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local name, value = fields[i], fields[i + 1]
    if name == 'failures' then
      failures = tonumber(value)
    elseif tonumber(value) < now then
      redis.call('HDEL', key, name)
    else
      inFlight = inFlight + 1
    end
  end
  return failures, inFlight
end
local key = KEYS[1]
if redis.call('TYPE', key).ok == 'string' then
  local count, ttl = redis.call('GET', key), redis.call('PTTL', key)
  redis.call('DEL', key)
  redis.call('HSET', key, 'failures', count)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
local limits = {tonumber(ARGV[5]), tonumber(ARGV[6])}
local busy = false
for k = #KEYS, 1, -1 do
  local failures, inFlight = state(KEYS[k])
  if failures >= limits[k] then return math.max(redis.call('TTL', KEYS[k]), 1) end
  if failures + inFlight >= limits[k] then busy = true end
end
if busy then return -2 end
for k = 1, #KEYS do
  redis.call('HSET', KEYS[k], 'p:' .. id, now + slotMs)
  if redis.call('TTL', KEYS[k]) < 0 then redis.call('EXPIRE', KEYS[k], window) end
end
return -1`;

/*
 * Ends a check. A failure is recorded in every key; the one that reaches a
 * key's limit starts its lock, which lasts lockSeconds from then. A success
 * ends the run of failures of the pair or device (not the account's budget: a
 * right password from one address says nothing of the guesses from the others).
 * A check that could not finish (a store failed) only frees its slot. Returns 1
 * when this failure started a lock.
 */
export const SETTLE = `
local id, outcome, window, lock = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local limits = {tonumber(ARGV[5]), tonumber(ARGV[6])}
for k = 1, #KEYS do redis.call('HDEL', KEYS[k], 'p:' .. id) end
if outcome == 'succeeded' then redis.call('HDEL', KEYS[1], 'failures') end
if outcome ~= 'failed' then return 0 end
local locked = 0
for k = 1, #KEYS do
  local failures = redis.call('HINCRBY', KEYS[k], 'failures', 1)
  if failures == 1 then redis.call('EXPIRE', KEYS[k], window) end
  if failures == limits[k] then
    redis.call('EXPIRE', KEYS[k], lock)
    locked = 1
  end
end
return locked`;
