-- Registry: creates or replaces a subscriber as the carrier's systems know
-- it, at the shard the line routes to. Name and ID number arrive sealed
-- (bound to the idcode); the store never holds them in the clear.
-- A replaced record ends any code waiting for the number. When the number
-- no longer belongs to the account that holds its line (another person, or
-- another ICCID: the SIM was swapped), or the subscription is not active,
-- the answer names that account: the caller retires the line.
-- ARGV: line id, iccid_hash, idcode, sealed_user_info, active ('1'|'0'), now_ms.
-- Returns {change (0 unchanged, 1 created, 2 replaced), owner to retire or ''}.
local line, iccid_hash, id, sealed, active, now_ms = unpack(ARGV)
local key = subscriber_key(line)
local old_iccid, old_id, old_active =
  unpack(redis.call('HMGET', key, 'iccid_hash', 'id', 'active'))
local change = 2
if not old_iccid then
  change = 1
elseif old_iccid == iccid_hash and old_id == id and old_active == active then
  change = 0
end
if change ~= 0 then
  redis.call('HSET', key, 'iccid_hash', iccid_hash, 'id', id, 'user_info', sealed, 'active', active,
             'updated_ms', now_ms)
end
if change == 2 then redis.call('DEL', code_key(line)) end
local owner = redis.call('HGET', claim_key(line), 'id')
local swapped = old_iccid and old_iccid ~= iccid_hash
if owner and (active ~= '1' or owner ~= id or swapped) then return {change, owner} end
return {change, ''}
