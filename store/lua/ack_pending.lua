-- F6 ack: apply or discard what the cursor's fetch delivered (every page of
-- it). Either way exactly those entries leave the mailbox; apply also moves
-- the line's base, but only where it is still what it was when the change
-- was fetched: a line that uploaded its own version of a uid since holds
-- that one, and its base says so already. Discard means "keep mine": the
-- fetched uids are remembered, and the line's next upload re-asserts them.
-- A paged fetch's ack may be taken in steps, each of the next `step` uids of
-- the fetch's list (0: all of them), so that no one call holds Redis for a
-- whole book; each step is done with its uids for good, the line records
-- how far the steps got, and the mark moves at the last one. A step with the
-- other decision than the steps before it is refused (stale_cursor).
-- ARGV: idcode, line, token hash (access_refused), cursor, decision
-- (apply|discard), step. Returns {entries acknowledged by this call,
-- 1 when the ack is complete or 0 when steps remain}.
local id, line, token_hash, cursor, decision = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local step = tonumber(ARGV[6]) or 0
local refusal = access_refused(id, line, token_hash)
if refusal then return refusal end
local lkey = line_key(id, line)
local fetched_cursor, under_way, reached, upto = unpack(redis.call(
  'HMGET', lkey, 'fetched', 'ack_state', 'fetch_mark', 'fetch_upto'))
if fetched_cursor ~= cursor then return fail('stale_cursor') end
-- "<cursor>:<decision>:<list entries done>" while an ack is under way.
local steps_done = 0
if under_way then
  local c, d, n = string.match(under_way, '^(%d+):(%a+):(%d+)$')
  if c == cursor then
    if d ~= decision then return fail('stale_cursor') end
    steps_done = tonumber(n)
  end
end
upto = tonumber(upto or '0')

local pkey, fkey, bkey, okey =
  pending_key(id, line), fetched_key(id, line), base_key(id, line), fetchlist_key(id, line)
-- The uids this call takes, each with what was fetched of it (false: never
-- delivered): the next `step` of a paged fetch's list, else every fetched.
local listed = fetch_list_size(id, line)
local uids, entries
if listed > 0 then
  local n = step > 0 and math.min(step, listed) or listed
  if not fetch_list_upto(id, line, n) then return fail('stale_cursor') end
  uids = redis.call('LRANGE', okey, 0, n - 1)
  local fetched = hmget_map(fkey, uids)
  entries = {}
  for i, uid in ipairs(uids) do entries[i] = fetched[uid] or false end
else
  local fetched = redis.call('HGETALL', fkey)
  uids, entries = {}, {}
  for i = 1, #fetched, 2 do
    uids[#uids + 1] = fetched[i]
    entries[#entries + 1] = fetched[i + 1]
  end
end
local delivered = {}
for i, uid in ipairs(uids) do
  if entries[i] then delivered[#delivered + 1] = uid end
end

local now_pending = hmget_map(pkey, uids)
local now_base = decision == 'apply' and hmget_map(bkey, delivered) or {}
local done, base_sets, base_dels, left = {}, {}, {}, {}
local left_seq = nil
for i, uid in ipairs(uids) do
  local entry, now = entries[i], now_pending[uid]
  if entry then
    local seq, what, base_then = split_fetched(entry)
    -- A newer explicit offer that arrived after the fetch stays pending.
    if now and pending_seq(now) == seq then done[#done + 1] = uid end
    if decision == 'apply' and
        (base_then == nil or (held_hash(now_base[uid]) or '-') == base_then) then
      if what == 'D' then
        base_dels[#base_dels + 1] = uid
      else
        base_sets[#base_sets + 1] = uid
        base_sets[#base_sets + 1] = what
      end
    end
  elseif reached and listed > 0 and steps_done + i - 1 >= upto and not now then
    -- What the history named up to the snapshot is done with either way;
    -- what it names after stays pending (read_pending). A paged fetch's uids
    -- the phone did not get to (pages it never asked for: past how far the
    -- pages asked in order reached) stay pending too, offered explicitly,
    -- since the mark moves past them.
    left_seq = left_seq or settled_seq(id)
    left[#left + 1] = uid
    left[#left + 1] = left_seq
  end
end
hdel_list(pkey, done)
hset_flat(bkey, base_sets)
hdel_list(bkey, base_dels)
if decision == 'discard' then
  call_in_chunks('SADD', reassert_key(id, line), delivered)
end
hset_flat(pkey, left)

if listed > #uids then
  -- Steps remain: this one's uids leave the list and the fetched hash, and
  -- the progress moves the mailbox's tag (mailbox_tag), as the mailbox moved.
  redis.call('LTRIM', okey, #uids, -1)
  hdel_list(fkey, delivered)
  redis.call('HSET', lkey, 'ack_state', cursor .. ':' .. decision .. ':' .. (steps_done + #uids))
  return {#delivered, 0}
end
-- The mark moves to the snapshot's even where a read since folded more and
-- moved it further (read_pending): an offer folded before the snapshot and
-- fetched is removed here, though the history may name its uid again after
-- the snapshot.
if reached then redis.call('HSET', lkey, 'mark', reached) end
redis.call('DEL', fkey, okey, fetchrest_key(id, line))
redis.call('HDEL', lkey, 'fetched', 'fetch_added', 'fetch_changed', 'fetch_removed', 'fetch_mark',
           'fetch_upto', 'fetch_rest', 'ack_state')
return {#delivered, 1}
