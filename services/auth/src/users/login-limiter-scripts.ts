/** The login limiter's Lua scripts; login-limiter.ts runs them and names their keys. */

/** A key's failures and its slots in flight, expired slots dropped (`now` the caller's time). */
const STATE = `local function state(key)
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
`;

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
${STATE}local key = KEYS[1]
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
 * ADMIT for a login with a device token of the user. KEYS: the device's hash,
 * the account's budget (only read), the hash the user's devices share while
 * the account is locked, and the user's last device. The device's own limit
 * holds always. While the account's budget is spent, every device but one
 * also counts against the shared hash, so devices together reach the password
 * check at most LOGIN_MAX_FAILURES times per window: the one spared is the
 * device that logged in last, while no failure is recorded against it, so
 * the owner still logs in. Answers as ADMIT, with -3 for a check admitted
 * against the shared hash too.
 */
export const ADMIT_DEVICE = `
local now, id, slotMs = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local window, max = ARGV[4], tonumber(ARGV[5])
${STATE}local function take(key)
  redis.call('HSET', key, 'p:' .. id, now + slotMs)
  if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, window) end
end
local failures, inFlight = state(KEYS[1])
if failures >= max then return math.max(redis.call('TTL', KEYS[1]), 1) end
if failures + inFlight >= max then return -2 end
local locked = tonumber(redis.call('HGET', KEYS[2], 'failures') or 0) >= tonumber(ARGV[6])
local spared = failures == 0 and redis.call('GET', KEYS[4]) == ARGV[7]
if locked and not spared then
  local shared, sharedInFlight = state(KEYS[3])
  if shared >= max then return math.max(redis.call('TTL', KEYS[3]), 1) end
  if shared + sharedInFlight >= max then return -2 end
  take(KEYS[1])
  take(KEYS[3])
  return -3
end
take(KEYS[1])
return -1`;

/*
 * Ends a check. KEYS[1] is the user's last device, KEYS[2..] what the check
 * counted against; ARGV: id, outcome, window, lock, the device that logged in
 * ('' for none), how long the last device is remembered, then each counted
 * key's limit. A failure is recorded in every counted key; the one that
 * reaches a key's limit starts its lock, which lasts lockSeconds from then. A
 * success ends the run of failures of the pair or device (not the account's
 * budget: a right password from one address says nothing of the guesses from
 * the others), and makes its device the user's last. A check that could not
 * finish (a store failed) only frees its slot. Returns 1 when this failure
 * started a lock.
 */
export const SETTLE = `
local id, outcome, window, lock, device = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
for k = 2, #KEYS do redis.call('HDEL', KEYS[k], 'p:' .. id) end
if outcome == 'succeeded' then
  redis.call('HDEL', KEYS[2], 'failures')
  if device ~= '' then redis.call('SET', KEYS[1], device, 'EX', ARGV[6]) end
end
if outcome ~= 'failed' then return 0 end
local locked = 0
for k = 2, #KEYS do
  local failures = redis.call('HINCRBY', KEYS[k], 'failures', 1)
  if failures == 1 then redis.call('EXPIRE', KEYS[k], window) end
  if failures == tonumber(ARGV[k + 5]) then
    redis.call('EXPIRE', KEYS[k], lock)
    locked = 1
  end
end
return locked`;
