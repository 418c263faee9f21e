-- F6 fetch: the line's pending changes and a cursor. What was fetched is
-- remembered, so the ack removes exactly that and nothing that came later.
-- ARGV: idcode, line. Returns {cursor, uid, kind, record, uid, kind, record, ...}.
local id, line = ARGV[1], ARGV[2]
if redis.call('SISMEMBER', sims_key(id), line) == 0 then return fail('unknown_line') end

local pkey, fkey = pending_key(id, line), fetched_key(id, line)
local uids, seqs, records = read_pending(id, line)
local out, fetched, stale = {}, {}, {}
for i, uid in ipairs(uids) do
  local rec = records[uid]
  local kind = rec and classify(id, line, uid, rec)
  if kind then
    out[#out + 1] = uid
    out[#out + 1] = kind
    out[#out + 1] = rec
    fetched[#fetched + 1] = uid
    fetched[#fetched + 1] = seqs[i] .. ':' .. (rec_deleted(rec) and 'D' or rec_hash(rec))
  else
    stale[#stale + 1] = uid -- the line already holds it, or it is gone from shared
  end
end
hdel_list(pkey, stale)
redis.call('DEL', fkey)
hset_flat(fkey, fetched)
local cursor = redis.call('HINCRBY', line_key(id, line), 'cursor', 1)
redis.call('HSET', line_key(id, line), 'fetched', cursor)
table.insert(out, 1, tostring(cursor))
return out
