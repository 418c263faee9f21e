-- F4 and the sibling resolution of F1: a peer carrier's outbox entries for
-- accounts of this store, applied in the order the peer wrote them, in one
-- script (one round trip, one AOF write and fsync for them all).
-- ARGV: origin carrier, history keep_ms and keep_count, now (Unix ms), then
-- per entry: kind ('batch', 'ask', 'hold' or 'retire'; 'announce', written
-- before asks existed, is an ask), idcode, batch (netstrings of uid, record
-- pairs; '' unless a batch).
-- Returns apply_incoming_reply (store/contract/replies.list).
local peer = ARGV[1]
keep_history(tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
local FIRST = 5
if (#ARGV - FIRST + 1) % 3 ~= 0 then return fail('bad_batch') end

local directory = {ask = answer_ask, announce = answer_ask, hold = take_hold,
                   retire = take_retire}

-- Every entry is checked before anything is written: a malformed one refuses
-- the whole call and changes nothing (the sender resends it all).
local parsed = {}
for i = FIRST, #ARGV, 3 do
  local kind = ARGV[i]
  if kind == 'batch' then
    parsed[i] = parse_batch(ARGV[i + 2])
    if not parsed[i] then return fail('bad_batch') end
  elseif not directory[kind] then
    return fail('bad_batch')
  end
end

local applied, identical, stale, not_sibling = 0, 0, 0, 0
local asked, answered, added, removed = 0, 0, 0, 0
for i = FIRST, #ARGV, 3 do
  local kind, id = ARGV[i], ARGV[i + 1]
  if kind == 'batch' then
    local a, same, old, foreign = replicate_in(id, parsed[i], peer)
    applied, identical, stale = applied + a, identical + same, stale + old
    not_sibling = not_sibling + foreign
    parsed[i] = nil -- done with it: free the memory while the script runs on
  else
    local q, ans, add, rm = directory[kind](id, peer)
    asked, answered, added, removed = asked + q, answered + ans, added + add, removed + rm
  end
end
return apply_incoming_reply{applied = applied, identical = identical, stale = stale, asked = asked,
                            answered = answered, siblings_added = added,
                            siblings_removed = removed, not_sibling = not_sibling}
