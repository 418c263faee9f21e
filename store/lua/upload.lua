-- F2 shared upload and F7 private upload, atomically.
-- ARGV: idcode, line, scope (shared|private), mode (snapshot|delta|remove),
--       now_hlc, carrier, allow_removals (1|0), then the items:
--       uid, hash, card triples; for mode remove, uids alone.
-- Returns {version, added, changed, removed, unchanged}.
local id, line, scope, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now_hlc, carrier, allow_removals = tonumber(ARGV[5]), ARGV[6], ARGV[7] == '1'
local FIRST = 8

if redis.call('SISMEMBER', sims_key(id), line) == 0 then return fail('unknown_line') end

local added, changed, removed, unchanged = 0, 0, 0, 0
local hlc = tick_clock(id, now_hlc)

local function finish(any_change)
  local version
  if any_change then
    version = redis.call('HINCRBY', acct_key(id), 'version', 1)
  else
    version = tonumber(redis.call('HGET', acct_key(id), 'version'))
  end
  return {version, added, changed, removed, unchanged}
end

-- F7: the private store is this line's backup; what it holds is the base.
if scope == 'private' then
  local key = private_key(id, line)
  local held = flat_to_map(redis.call('HGETALL', key))
  local writes, dels, seen = {}, {}, {}
  local function drop(uid)
    if held[uid] then
      dels[#dels + 1] = uid
      removed = removed + 1
    end
  end
  if mode == 'remove' then
    for i = FIRST, #ARGV do drop(ARGV[i]) end
  else
    for i = FIRST, #ARGV, 3 do
      local uid, hash = ARGV[i], ARGV[i + 1]
      seen[uid] = true
      local cur = held[uid]
      if cur and rec_hash(cur) == hash then
        unchanged = unchanged + 1
      else
        writes[#writes + 1] = uid
        writes[#writes + 1] = make_record(hlc, hash, false, carrier, line, ARGV[i + 2])
        if cur then changed = changed + 1 else added = added + 1 end
      end
    end
    if mode == 'snapshot' and allow_removals then
      for uid in pairs(held) do
        if not seen[uid] then drop(uid) end
      end
    end
  end
  hset_flat(key, writes)
  hdel_list(key, dels)
  return finish(#writes + #dels > 0)
end

-- F2: diff against the line's base, so cards that came from other lines and
-- were never applied here are not read as deletions.
local skey, bkey = shared_key(id), base_key(id, line)
local changes, base_sets, base_dels, touched = {}, {}, {}, {}
-- A snapshot is compared with the whole base; a delta needs only its own
-- cards' entries (a 100-card delta to a 50,000-card book reads 100, not 50,000).
local base = {}
if mode == 'snapshot' then
  base = flat_to_map(redis.call('HGETALL', bkey))
elseif mode == 'delta' then
  local uids = {}
  for i = FIRST, #ARGV, 3 do uids[#uids + 1] = ARGV[i] end
  base = hmget_map(bkey, uids)
end
local function base_hash(uid)
  if mode ~= 'remove' then return base[uid] end
  return redis.call('HGET', bkey, uid)
end

local function put(uid, cur, rec)
  -- The line overwrites a version it never held: a concurrent edit, kept.
  if cur and not rec_deleted(cur) and base_hash(uid) ~= rec_hash(cur) then
    keep_in_history(id, uid, cur)
  end
  redis.call('HSET', skey, uid, rec)
  changes[#changes + 1] = uid
  changes[#changes + 1] = rec
end

local function remove(uid)
  local cur = redis.call('HGET', skey, uid)
  if cur and not rec_deleted(cur) then
    put(uid, cur, make_record(hlc, TOMBSTONE_HASH, true, carrier, line, ''))
    removed = removed + 1
  end
  base_dels[#base_dels + 1] = uid
  touched[#touched + 1] = uid
end

if mode == 'remove' then
  for i = FIRST, #ARGV do remove(ARGV[i]) end
else
  local seen = {}
  for i = FIRST, #ARGV, 3 do
    local uid, hash = ARGV[i], ARGV[i + 1]
    seen[uid] = true
    if base[uid] == hash then
      unchanged = unchanged + 1
    else
      base_sets[#base_sets + 1] = uid
      base_sets[#base_sets + 1] = hash
      touched[#touched + 1] = uid
      local cur = redis.call('HGET', skey, uid)
      local live = cur and not rec_deleted(cur)
      if live and rec_hash(cur) == hash then
        unchanged = unchanged + 1
      else
        put(uid, cur, make_record(hlc, hash, false, carrier, line, ARGV[i + 2]))
        if live then changed = changed + 1 else added = added + 1 end
      end
    end
  end
  if mode == 'snapshot' and allow_removals then
    for uid in pairs(base) do
      if not seen[uid] then remove(uid) end
    end
  end
end

hset_flat(bkey, base_sets)
hdel_list(bkey, base_dels)
-- What the line now holds supersedes anything pending for it on that uid.
hdel_list(pending_key(id, line), touched)
offer_to_lines(id, changes, line)
send_to_siblings(id, changes)
return finish(#changes > 0)
