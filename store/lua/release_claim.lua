-- Releases a line's claim (claim_line.lua) once the line is gone, if the
-- idcode still holds it. ARGV: line id, idcode. Returns {released (1|0)}.
local line, id = ARGV[1], ARGV[2]
if redis.call('HGET', claim_key(line), 'id') ~= id then
  return release_claim_reply{released = 0}
end
redis.call('DEL', claim_key(line))
return release_claim_reply{released = 1}
