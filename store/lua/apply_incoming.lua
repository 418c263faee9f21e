-- F4 and the sibling resolution of F1: a peer carrier's outbox entries for
-- accounts of this store, applied in the order the peer wrote them, in one
-- script (one round trip, one AOF write and fsync for them all).
-- ARGV: origin carrier, history keep_ms and keep_count, now (Unix ms), then
-- per entry: kind ('batch', 'ask', 'hold' or 'retire'; 'announce', written
-- before asks existed, is an ask), idcode, the number n of items that follow
-- it, the newest stamp (HLC) of its records ('0' for the others), the
-- origin ("carrier|line") its records share when all are live versions
-- from one line ('' otherwise), the count c of the arguments that follow
-- it, the numbers its records write their origins as, each with its
-- origin's text (number, text, ...: claim_origin), and those items: a
-- batch's uid, record pairs (0 items and c = 0 for the others). The caller
-- (account_store::apply_incoming) checked every record's form and read the
-- stamp and origin
-- (core::checked_record_hlc), then numbered the origins: here a record's
-- head is read as that checked and wrote it.
-- The items come as arguments of their own, not as one blob to split here:
-- Redis makes each argument a Lua string once, where a blob was made one
-- whole and then again in pieces.
-- Returns apply_incoming_reply (store/contract/replies.list).
local peer = ARGV[1]
keep_history(ARGV[2], ARGV[3], ARGV[4] + 0)
local FIRST = 5

-- Every entry is checked before anything is written: a malformed one refuses
-- the whole call and changes nothing (the sender resends it all).
local entries = {}
local at = FIRST
while at <= #ARGV do
  local kind, id, count, newest, claims =
    ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 5]
  local n = count and string.find(count, '^%d+$') and count + 0
  local c = claims and string.find(claims, '^%d+$') and claims + 0
  if not n or n % 2 ~= 0 or not c or c % 2 ~= 0 or at + 5 + c + n > #ARGV or
      not string.find(newest, '^%d+$') then
    return fail('bad_batch')
  end
  -- A batch's claims and items stay where they are, ARGV[claims_from..]
  -- and ARGV[from..last].
  local entry = {kind = kind, id = id, claims_from = at + 6, from = at + 6 + c,
                 last = at + 5 + c + n}
  if kind == 'batch' then
    entry.newest = newest + 0
    if ARGV[at + 4] ~= '' then entry.live_origin = ARGV[at + 4] end
  elseif not DIRECTORY_ACTIONS[kind] or n ~= 0 or c ~= 0 then
    return fail('bad_batch')
  end
  entries[#entries + 1] = entry
  at = at + 6 + c + n
end

local applied, identical, stale, not_sibling = 0, 0, 0, 0
local asked, answered, added, removed = 0, 0, 0, 0
for _, entry in ipairs(entries) do
  if entry.newest then
    local a, same, old, foreign =
      replicate_in(entry.id, ARGV, entry.claims_from, entry.from, entry.last, entry.newest,
                   entry.live_origin, peer)
    applied, identical, stale = applied + a, identical + same, stale + old
    not_sibling = not_sibling + foreign
  else
    local q, ans, add, rm = DIRECTORY_ACTIONS[entry.kind](entry.id, peer)
    asked, answered, added, removed = asked + q, answered + ans, added + add, removed + rm
  end
end
collect_if_large(applied + identical + stale)
return apply_incoming_reply{applied = applied, identical = identical, stale = stale, asked = asked,
                            answered = answered, siblings_added = added,
                            siblings_removed = removed, not_sibling = not_sibling}
