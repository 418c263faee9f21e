-- Releases an msisdn's claim (claim_line.lua) once its line is gone, if the
-- idcode still holds it. ARGV: msisdn, idcode. Returns {released (1|0)}.
local msisdn, id = ARGV[1], ARGV[2]
if redis.call('HGET', claim_key(msisdn), 'id') ~= id then return {0} end
redis.call('DEL', claim_key(msisdn))
return {1}
