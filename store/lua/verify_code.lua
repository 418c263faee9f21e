-- F1, second step: checks a one-time code and uses it up. A wrong code
-- counts against the code; the last allowed wrong attempt ends it.
-- ARGV: line id, code_hash, now_ms, max_attempts.
-- Returns {idcode, iccid_hash, sealed_user_info} of the subscriber. Fails no_code
-- (none waiting, or used), code_expired, wrong_code <attempts left>,
-- too_many_attempts <retry_after_ms>, not_eligible (no longer a subscriber).
local line, hash = ARGV[1], ARGV[2]
local now, max_attempts = tonumber(ARGV[3]), tonumber(ARGV[4])
local key = code_key(line)
local want, expires, attempts = unpack(redis.call('HMGET', key, 'hash', 'expires_ms',
                                                  'attempts'))
if not want then return fail('no_code') end
expires, attempts = tonumber(expires), tonumber(attempts)
local function exhausted()
  return fail('too_many_attempts', string.format('%d', math.max(expires - now, 0)))
end
if attempts >= max_attempts then return exhausted() end
if now >= expires then return fail('code_expired') end
if hash ~= want then
  attempts = redis.call('HINCRBY', key, 'attempts', 1)
  if attempts >= max_attempts then return exhausted() end
  return fail('wrong_code', string.format('%d', max_attempts - attempts))
end
redis.call('DEL', key)
local iccid_hash, id, sealed, active = unpack(redis.call('HMGET', subscriber_key(line),
                                                       'iccid_hash', 'id', 'user_info',
                                                       'active'))
if not iccid_hash or active ~= '1' then return fail('not_eligible') end
return {id, iccid_hash, sealed}
