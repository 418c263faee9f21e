-- F4 receive: compare, then copy. A change from a sibling carrier is taken
-- only if its stamp is newer; if its content differs, it goes into the
-- pending mailbox of every line of the account.
-- ARGV: idcode, batch (an outbox entry's netstrings of uid, record pairs).
-- Returns {applied, identical, stale}.
local id = ARGV[1]
local items = parse_batch(ARGV[2])
if not items then return fail('bad_batch') end
-- No account here (any more): nothing to apply; a later registration is
-- bootstrapped with the whole store.
if redis.call('EXISTS', acct_key(id)) == 0 then return {0, 0, #items / 2} end

local skey = shared_key(id)
local changes = {}
local applied, identical, stale = 0, 0, 0
local max_hlc = 0

local function keep_in_history(uid, rec)
  redis.call('XADD', history_key(id), 'MAXLEN', '~', '1000', '*', 'uid', uid, 'rec', rec)
end

for i = 1, #items, 2 do
  local uid, rec = items[i], items[i + 1]
  max_hlc = math.max(max_hlc, tonumber(rec_hlc(rec)))
  local cur = redis.call('HGET', skey, uid)
  if not cur or newer(rec, cur) then
    -- Even a same-content change moves the stamp, so every replica holds the
    -- same stamp and later changes are ordered the same everywhere.
    redis.call('HSET', skey, uid, rec)
    if cur and same_content(rec, cur) then
      identical = identical + 1
    else
      if cur and not rec_deleted(cur) then
        local cc, cl = rec_origin(cur)
        local rc, rl = rec_origin(rec)
        if cc ~= rc or cl ~= rl then keep_in_history(uid, cur) end
      end
      changes[#changes + 1] = uid
      changes[#changes + 1] = rec
      applied = applied + 1
    end
  elseif same_content(rec, cur) then
    identical = identical + 1
  else
    keep_in_history(uid, rec)
    stale = stale + 1
  end
end

observe_clock(id, max_hlc)
if #changes > 0 then
  redis.call('HINCRBY', acct_key(id), 'version', 1)
  offer_to_lines(id, changes, nil)
end
return {applied, identical, stale}
