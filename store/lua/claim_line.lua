-- F1, first step: claims a line for an idcode at the shard the line routes
-- to, so that a carrier of several nodes has one owner per msisdn
-- whichever node holds the account. Idempotent for the owner (a claim left
-- by a crash before its line was registered does not lock its idcode out).
-- ARGV: line id, idcode, now_ms, take_over_from ('' or the owner whose claim
-- the caller found to be without a line: replaced only if it still holds it).
-- Returns {claimed (1|0), owner, since_ms}.
local line, id, now_ms, from = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = claim_key(line)
local owner, since = unpack(redis.call('HMGET', key, 'id', 'since_ms'))
if owner and owner ~= id and owner ~= from then return {0, owner, since or '0'} end
redis.call('HSET', key, 'id', id, 'since_ms', now_ms)
return {1, id, now_ms}
