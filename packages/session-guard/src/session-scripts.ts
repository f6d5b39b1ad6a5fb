import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/**
 * The Lua scripts that keep the layout of session-keys.ts. Each one touches the
 * keys of one slot only: a session and its metadata (KEYS[1], KEYS[2]), or one
 * index. Times are milliseconds since the epoch, sent by the caller; lifetimes are
 * milliseconds and always positive where a key gets one, since `PEXPIRE key 0`
 * deletes and `SET ... PX 0` fails.
 */
class Script {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /** EVALSHA, and EVAL once a server has not seen the script (a restart, a failover, a new node). */
  run(redis: Redis | Cluster, keys: string[], args: (string | number)[]): Promise<unknown> {
    return redis.evalsha(this.sha, keys.length, ...keys, ...args).catch((err: unknown) => {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    });
  }
}

/**
 * A login: the session with its lifetime, and fresh metadata with the same one.
 * ARGV: username, lifetime, id, now, endsAt, stamp, ip[, userAgent]. Refused
 * (0, nothing written) when a password change retired this token (RETIRE)
 * after the login's stamp was taken; stamp `-` skips that check.
 */
export const OPEN = new Script(`
local retired = redis.call('HGET', KEYS[2], 'retired')
if retired and ARGV[6] ~= '-' and retired ~= ARGV[6] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'id', ARGV[3], 'createdAt', ARGV[4], 'lastSeenAt', ARGV[4], 'endsAt', ARGV[5], 'ip', ARGV[7])
if ARGV[8] then redis.call('HSET', KEYS[2], 'userAgent', ARGV[8]) end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`);

/*
 * The guard's check. ARGV: now, touch interval, renewal (0: not sliding), the
 * guard's own max age. Nothing is written for a session that is gone, so a use
 * racing with its end cannot bring it back. lastSeenAt is written at most once
 * per touch interval. A session past the end its login stored (endsAt) ends
 * here. A sliding renewal never reaches past that end, nor past createdAt + the
 * guard's own max age (a guard may only shorten a session). A session whose
 * metadata lacks createdAt or endsAt has no known end: it is not renewed, and
 * the caller has DESCRIBE fill in what is missing. Returns false (no session)
 * or {username, index lifetime (sliding: what the user's index must live at
 * least; else 0), 1 when details are missing, lastSeenAt as it now stands (0
 * when missing)}.
 */
export const CHECK = new Script(`
local username = redis.call('GET', KEYS[1])
if not username then return false end
local now, touch, renew = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local meta = redis.call('HMGET', KEYS[2], 'createdAt', 'lastSeenAt', 'endsAt')
if not (meta[1] and meta[3]) then return {username, 0, 1, 0} end
local ends = tonumber(meta[3])
if ends <= now then
  redis.call('DEL', KEYS[1], KEYS[2])
  return false
end
local seen = tonumber(meta[2] or 0)
local touched = now - seen >= touch
if touched then
  redis.call('HSET', KEYS[2], 'lastSeenAt', ARGV[1])
  seen = now
end
if renew == 0 then
  -- Keeps the metadata's end the session's, should another writer have moved one.
  if touched then
    local left = redis.call('PTTL', KEYS[1])
    if left > 0 then redis.call('PEXPIRE', KEYS[2], left) end
  end
  return {username, 0, 0, seen}
end
local life = math.min(renew, ends - now, tonumber(meta[1]) + tonumber(ARGV[4]) - now)
if life < 1 then
  redis.call('DEL', KEYS[1], KEYS[2])
  return false
end
redis.call('PEXPIRE', KEYS[1], life)
redis.call('PEXPIRE', KEYS[2], life)
return {username, life, 0, seen}`);

/*
 * A live session as a list shows it: {ms left, id, createdAt, lastSeenAt, ip,
 * userAgent, seconds since its key was last used (-1 when Redis keeps none,
 * under an LFU policy)}, or false. It never reads the session key's value, so
 * Redis's record of the key's last use (OBJECT IDLETIME, to the second) stays
 * that of its last guarded use, which is what the per-user cap orders by.
 * Details a session lacks (all of them for one the old backend wrote, one from
 * before metadata or one whose metadata was lost; endsAt for one from before
 * sessions stored their end) are filled in, never overwritten. A missing
 * createdAt is read off the session key itself: a login gave it `lifetime` ms,
 * so it began `lifetime` minus the time left ago (a sliding renewal moves that
 * to the renewal); with no lifetime known, or more time left than it, it is
 * now (first seen). A missing end is where the session now ends, so no renewal
 * takes it further. ARGV: id, now, max age (the lifetime of a session key
 * found without one), lifetime (0: unknown), ip[, userAgent].
 */
export const DESCRIBE = new Script(`
local idle = redis.pcall('OBJECT', 'IDLETIME', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left == -2 then return false end
if type(idle) ~= 'number' then idle = -1 end
local now, lifetime = tonumber(ARGV[2]), tonumber(ARGV[4])
if left < 0 then
  left = tonumber(ARGV[3])
  redis.call('PEXPIRE', KEYS[1], left)
end
local began = now
if lifetime > 0 and left <= lifetime then began = now - (lifetime - left) end
local fresh = redis.call('EXISTS', KEYS[2]) == 0
redis.call('HSETNX', KEYS[2], 'id', ARGV[1])
redis.call('HSETNX', KEYS[2], 'createdAt', began)
local used = tonumber(redis.call('HGET', KEYS[2], 'createdAt'))
if idle >= 0 then used = math.max(used, now - idle * 1000) end
redis.call('HSETNX', KEYS[2], 'lastSeenAt', used)
redis.call('HSETNX', KEYS[2], 'endsAt', now + left)
redis.call('HSETNX', KEYS[2], 'ip', ARGV[5])
if fresh and ARGV[6] then redis.call('HSET', KEYS[2], 'userAgent', ARGV[6]) end
if redis.call('PTTL', KEYS[2]) < 0 then redis.call('PEXPIRE', KEYS[2], left) end
local meta = redis.call('HMGET', KEYS[2], 'id', 'createdAt', 'lastSeenAt', 'ip', 'userAgent')
return {left, meta[1], meta[2], meta[3], meta[4], meta[5], idle}`);

/** Ends a session: 1 when it was live, else 0. A retired token's marker stays. */
export const END = new Script(`
local live = redis.call('DEL', KEYS[1])
if redis.call('HEXISTS', KEYS[2], 'retired') == 0 then redis.call('DEL', KEYS[2]) end
return live`);

/**
 * md5, after a password change: ends the old password's token and, for as long
 * as ARGV[2] ms, refuses it to every login whose stamp is not ARGV[1] (OPEN).
 */
export const RETIRE = new Script(`
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[2], 'retired', ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`);

/**
 * Adds ARGV[2] to the index and makes the index live at least ARGV[1] ms;
 * returns how many entries the index now holds.
 */
export const INDEX_ADD = new Script(`
redis.call('SADD', KEYS[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return redis.call('SCARD', KEYS[1])`);

/** Makes an existing key live at least ARGV[1] ms; never shortens, never creates. */
export const EXTEND = new Script(`
local left = redis.call('PTTL', KEYS[1])
if left ~= -2 and left < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return left`);
