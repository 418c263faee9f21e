-- Key rotation: values of one hash sealed again with the writer key, each
-- written only if the hash still holds the value that was re-sealed (a flow
-- that changed it meanwhile wrote a value sealed with the writer already).
-- ARGV: key, then field, old value, new value triples. Returns {replaced}.
local key = ARGV[1]
local replaced = 0
for i = 2, #ARGV, 3 do
  if redis.call('HGET', key, ARGV[i]) == ARGV[i + 1] then
    redis.call('HSET', key, ARGV[i], ARGV[i + 2])
    replaced = replaced + 1
  end
end
return {replaced}
