-- Registry: deletes a subscriber (SIM cancelled, number to be recycled) and
-- any code waiting for the number. The per-number code limit stays.
-- ARGV: line id. Returns {existed (1|0), owner of the line to retire or ''}.
local line = ARGV[1]
local existed = redis.call('DEL', subscriber_key(line))
redis.call('DEL', code_key(line))
return {existed, redis.call('HGET', claim_key(line), 'id') or ''}
