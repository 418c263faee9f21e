-- F5 update request: what the line's pending mailbox holds for it. Changes
-- reach the mailbox when they reach the account (F2 for the account's other
-- lines, F4 from siblings, F1 for a line added later), atomically, so there
-- is nothing to catch up here, only to count.
-- ARGV: idcode, line. Returns {added, changed, removed}.
local id, line = ARGV[1], ARGV[2]
if redis.call('SISMEMBER', sims_key(id), line) == 0 then return fail('unknown_line') end

local counts = {added = 0, changed = 0, removed = 0}
local pending = redis.call('HGETALL', pending_key(id, line))
for i = 1, #pending, 2 do
  local _, rec = split_pending(pending[i + 1])
  local kind = classify(id, line, pending[i], rec)
  if kind then counts[kind] = counts[kind] + 1 end
end
return {counts.added, counts.changed, counts.removed}
