-- F4 and the announcements of F1: a sibling carrier's outbox entries for
-- accounts of this store, applied in the order the sibling wrote them, in one
-- script (one round trip, one AOF write and fsync for them all).
-- ARGV: origin carrier, history keep_ms and keep_count, then per entry: kind
-- ('batch', 'announce' or 'retire'), idcode, batch (netstrings of uid, record
-- pairs; '' unless a batch).
-- Returns {applied, identical, stale, siblings_added, siblings_removed}.
local peer, keep_ms, keep_count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local FIRST = 4
if (#ARGV - FIRST + 1) % 3 ~= 0 then return fail('bad_batch') end

-- Every entry is checked before anything is written: a malformed one refuses
-- the whole call and changes nothing (the sender resends it all).
local parsed = {}
for i = FIRST, #ARGV, 3 do
  local kind = ARGV[i]
  if kind == 'batch' then
    parsed[i] = parse_batch(ARGV[i + 2])
    if not parsed[i] then return fail('bad_batch') end
  elseif kind ~= 'announce' and kind ~= 'retire' then
    return fail('bad_batch')
  end
end

local applied, identical, stale, added, removed = 0, 0, 0, 0, 0
for i = FIRST, #ARGV, 3 do
  local kind, id = ARGV[i], ARGV[i + 1]
  if kind == 'batch' then
    local a, same, old = replicate_in(id, parsed[i], keep_ms, keep_count)
    applied, identical, stale = applied + a, identical + same, stale + old
    parsed[i] = nil -- done with it: free the memory while the script runs on
  elseif kind == 'announce' then
    added = added + (add_sibling(id, peer))
  else
    removed = removed + remove_sibling(id, peer)
  end
end
return {applied, identical, stale, added, removed}
