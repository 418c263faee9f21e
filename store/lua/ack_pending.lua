-- F6 ack: apply or discard what the cursor's fetch delivered (every page of
-- it). Either way exactly those entries leave the mailbox; apply also moves
-- the line's base, but only where it is still what it was when the change
-- was fetched: a line that uploaded its own version of a uid since holds
-- that one, and its base says so already. Discard means "keep mine": the
-- fetched uids are remembered, and the line's next upload re-asserts them.
-- ARGV: idcode, line, token hash (access_refused), cursor, decision
-- (apply|discard). Returns {entries}.
local id, line, token_hash, cursor, decision = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local refusal = access_refused(id, line, token_hash)
if refusal then return refusal end
local lkey = line_key(id, line)
if redis.call('HGET', lkey, 'fetched') ~= cursor then return fail('stale_cursor') end

local pkey, fkey, bkey = pending_key(id, line), fetched_key(id, line), base_key(id, line)
local fetched = redis.call('HGETALL', fkey)
local uids = {}
for i = 1, #fetched, 2 do uids[#uids + 1] = fetched[i] end
local now_pending = hmget_map(pkey, uids)
local now_base = decision == 'apply' and hmget_map(bkey, uids) or {}
local done, base_sets, base_dels = {}, {}, {}
for i = 1, #fetched, 2 do
  local uid = fetched[i]
  local seq, what, base_then = split_fetched(fetched[i + 1])
  local now = now_pending[uid]
  -- A newer explicit offer that arrived after the fetch stays pending.
  if now and pending_seq(now) == seq then done[#done + 1] = uid end
  if decision == 'apply' and (base_then == nil or (now_base[uid] or '-') == base_then) then
    if what == 'D' then
      base_dels[#base_dels + 1] = uid
    else
      base_sets[#base_sets + 1] = uid
      base_sets[#base_sets + 1] = what
    end
  end
end
hdel_list(pkey, done)
hset_flat(bkey, base_sets)
hdel_list(bkey, base_dels)
if decision == 'discard' then
  local rkey = reassert_key(id, line)
  for i = 1, #uids, CHUNK do
    redis.call('SADD', rkey, unpack(uids, i, math.min(i + CHUNK - 1, #uids)))
  end
end
-- What the history named up to the snapshot is done with either way; what
-- it names after stays pending (read_pending). A paged fetch's uids the
-- phone did not get to (pages it never asked for: past how far the pages
-- asked in order reached) stay pending too, offered explicitly now that the
-- mark moves past them. The mark moves to the snapshot's even where a read
-- since folded more and moved it further (read_pending): an offer folded
-- before the snapshot and fetched is removed here, though the history may
-- name its uid again after the snapshot.
local reached = redis.call('HGET', lkey, 'fetch_mark')
if reached then
  local upto = tonumber(redis.call('HGET', lkey, 'fetch_upto') or '0')
  local listed = redis.call('LRANGE', fetchlist_key(id, line), upto, -1)
  if #listed > 0 then
    local delivered = {}
    for _, uid in ipairs(uids) do delivered[uid] = true end
    local offered = hmget_map(pkey, listed)
    local seq = settled_seq(id)
    local left = {}
    for _, uid in ipairs(listed) do
      if not delivered[uid] and not offered[uid] then
        left[#left + 1] = uid
        left[#left + 1] = seq
      end
    end
    hset_flat(pkey, left)
  end
  redis.call('HSET', lkey, 'mark', reached)
end
redis.call('DEL', fkey, fetchlist_key(id, line))
redis.call('HDEL', lkey, 'fetched', 'fetch_added', 'fetch_changed', 'fetch_removed', 'fetch_mark',
           'fetch_upto')
return {#uids}
