-- Registry: deletes a subscriber (SIM cancelled, number to be recycled) and
-- any code waiting for the number. The per-number code limit stays.
-- ARGV: msisdn. Returns {existed (1|0), owner of the number's line to retire or ''}.
local msisdn = ARGV[1]
local existed = redis.call('DEL', subscriber_key(msisdn))
redis.call('DEL', code_key(msisdn))
return {existed, redis.call('HGET', claim_key(msisdn), 'id') or ''}
