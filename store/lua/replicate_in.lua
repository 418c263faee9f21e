-- F4 receive, one batch (lib.lua's replicate_in).
-- ARGV: idcode, batch (an outbox entry's netstrings of uid, record pairs).
-- Returns {applied, identical, stale}.
local items = parse_batch(ARGV[2])
if not items then return fail('bad_batch') end
return {replicate_in(ARGV[1], items)}
