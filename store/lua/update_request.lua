-- F5 update request: what the line's pending mailbox holds for it. Changes
-- reach the mailbox when they reach the account (F2 for the account's other
-- lines, F4 from siblings, F1 for a line added later), atomically, so there
-- is nothing to catch up here, only to count.
-- ARGV: idcode, line, token hash (access_refused). Returns {added, changed, removed}.
local id, line, token_hash = ARGV[1], ARGV[2], ARGV[3]
local refusal = access_refused(id, line, token_hash)
if refusal then return refusal end

-- A phone asks again and again while it does not take its changes, and
-- a count goes through every pending uid and reads the records whose kind
-- the history does not tell (read_pending; bench/store_edit_bench
-- BM_update_of_a_book_not_taken): the counts are kept with the mailbox's
-- tag and answered again while it holds.
local kept = kept_counts(id, line)
if kept then return {kept.added, kept.changed, kept.removed} end
local counts = counts_of_additions(id, line)
if not counts then
  counts = {added = 0, changed = 0, removed = 0}
  local _, kinds = read_pending(id, line)
  for _, kind in pairs(kinds) do
    counts[kind] = counts[kind] + 1
  end
end
redis.call('HSET', line_key(id, line), 'counted_tag', mailbox_tag(id, line), 'counted',
           counts.added .. '.' .. counts.changed .. '.' .. counts.removed)
return {counts.added, counts.changed, counts.removed}
