-- F6 ack: apply or discard what the cursor's fetch returned. Either way
-- exactly those entries leave the mailbox; apply also moves the line's base.
-- ARGV: idcode, line, cursor, decision (apply|discard). Returns {entries}.
local id, line, cursor, decision = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('SISMEMBER', sims_key(id), line) == 0 then return fail('unknown_line') end
local lkey = line_key(id, line)
if redis.call('HGET', lkey, 'fetched') ~= cursor then return fail('stale_cursor') end

local pkey, fkey, bkey = pending_key(id, line), fetched_key(id, line), base_key(id, line)
local fetched = redis.call('HGETALL', fkey)
local done, base_sets, base_dels = {}, {}, {}
for i = 1, #fetched, 2 do
  local uid = fetched[i]
  local seq, what = split_fetched(fetched[i + 1])
  local now = redis.call('HGET', pkey, uid)
  -- A newer change that arrived after the fetch stays pending.
  if now and pending_seq(now) == seq then done[#done + 1] = uid end
  if decision == 'apply' then
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
redis.call('DEL', fkey)
redis.call('HDEL', lkey, 'fetched')
return {#fetched / 2}
