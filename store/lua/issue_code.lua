-- F1, first step: a one-time code for an active subscriber's number, if the
-- ICCID is the subscriber's and the number has not had too many codes in
-- the window. Only the code's keyed hash is stored; a new code replaces the
-- one waiting. The record outlives the code's expiry by the window so that
-- a late answer hears "expired" rather than "no code".
-- ARGV: line id, iccid_hash, code_hash, now_ms, ttl_ms, window_ms, max_codes.
-- Returns {expires_ms}. Fails not_eligible, or too_many_codes <retry_after_ms>.
local line, iccid_hash, hash = ARGV[1], ARGV[2], ARGV[3]
local now, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local window, max_codes = tonumber(ARGV[6]), tonumber(ARGV[7])
local have_iccid, active = unpack(redis.call('HMGET', subscriber_key(line), 'iccid_hash',
                                            'active'))
if have_iccid ~= iccid_hash or active ~= '1' then return fail('not_eligible') end
local sent = codes_sent_key(line)
redis.call('ZREMRANGEBYSCORE', sent, '-inf', now - window)
if redis.call('ZCARD', sent) >= max_codes then
  local oldest = tonumber(redis.call('ZRANGE', sent, 0, 0, 'WITHSCORES')[2])
  return fail('too_many_codes', string.format('%d', oldest + window - now))
end
redis.call('ZADD', sent, now, hash)
redis.call('PEXPIRE', sent, window)
local key = code_key(line)
redis.call('DEL', key)
redis.call('HSET', key, 'hash', hash, 'expires_ms', string.format('%d', now + ttl),
           'attempts', '0')
redis.call('PEXPIRE', key, ttl + window)
return {now + ttl}
