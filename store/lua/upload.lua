-- F2 shared upload and F7 private upload, atomically.
-- ARGV: idcode, line, token hash (access_refused), scope (shared|private),
--       mode (snapshot|delta|remove|compare|scan|prune),
--       now_hlc, carrier, allow_removals (1|0), confirm_removals (a count the
--       phone confirmed), mass_min_cards, mass_percent, history keep_ms,
--       history keep_count, then the items: for modes snapshot and delta,
--       the number the records write the line's origin as
--       (core::origin_number), then uid, hash, record triples, each
--       record the line's live version of the card stamped at now_hlc, as
--       core::encode_live_record makes it; for mode remove, uids alone; for
--       mode compare, their hashes (16 bytes each, in one string) and
--       then the uids; for mode scan, a cursor and a page's size; for mode
--       prune, the uids its snapshot leaves out.
-- A snapshot sent in parts (store/upload_parts.hpp) is compares of its
-- cards, which store nothing and answer which cards the line holds as they
-- are; then, if the line holds cards it leaves out, scans of what the line
-- holds, which store nothing either; then, if it leaves cards out (or the
-- line discarded changes of cards it does not name), a prune of those: the
-- snapshot's removals, with its guard; then its cards as deltas, but for
-- those the line holds.
-- Returns {version, added, changed, removed, unchanged, 0, 0, conflicts...}
-- with conflicts as uid, reason pairs; or, having stored nothing,
-- {0, 0, 0, 0, 0, would_remove, book_size} for a snapshot that would remove
-- more of the book than the line confirmed (the mass-deletion guard); a
-- compare, {version, 0, 0, 0, unchanged, 0, 0, cards_to_send, base_holds,
-- base_size, n, discarded uids (n)...} (compare_with_base); a scan,
-- {version, 0, 0, 0, 0, 0, 0, next cursor, uids...} (scan_base).
local id, line, token_hash, scope, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local now_hlc, carrier, allow_removals = ARGV[6] + 0, ARGV[7], ARGV[8] == '1'
-- (The guard's figures are read as numbers only where a removal can be: an
-- edit's delta has none, and each number read costs more than a small
-- command's work.)
local confirmed, mass_min, mass_percent = nil, nil, nil
if mode ~= 'delta' then
  confirmed, mass_min, mass_percent = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
end
local keep_ms, keep_count = ARGV[12], ARGV[13]
-- Whether the items are uid, hash, record triples (else uids alone), and so
-- the stride of the items' uids.
local with_records = mode == 'snapshot' or mode == 'delta'
local STEP = with_records and 3 or 1
-- (A compare's hashes come before its uids, the origin's number before
-- the records.)
local FIRST = (mode == 'compare' or with_records) and 15 or 14
-- A snapshot's removals are of what it leaves out (a prune's: what it names).
local leaves_out = mode == 'snapshot' or mode == 'prune'

local refusal = access_refused(id, line, token_hash)
if refusal then return refusal end

-- The account's version as stored, for the parts that store nothing.
local function stored_version()
  return tonumber(redis.call('HGET', account_key(id), 'version') or '0')
end

-- The hash a compare names for its uid ARGV[i].
local function compared_hash(i)
  local at = (i - FIRST) * REC_HASH_BYTES + 1
  return string.sub(ARGV[FIRST - 1], at, at + REC_HASH_BYTES - 1)
end

-- A compare's answer: a character per uid, '0' for a card the line holds
-- as the compare names it (its base's hash, or its backup's record's) and
-- did not discard: a delta of it would count it unchanged and store
-- nothing, so it is counted here and the deltas leave it out; '1' for the
-- others. A chunk the base holds whole is one comparison of strings (an
-- unchanged book's re-sync is mostly HMGETs). Then how many of the uids the
-- base holds, how many it holds in all, and the uids whose changes the line
-- discarded (the snapshot's prune settles those it does not name). It
-- stores nothing: a 50,000-card book is compared in calls of a few thousand
-- cards, so that none holds Redis long.
local function compare_with_base()
  local version = stored_version()
  local count = #ARGV - FIRST + 1
  local key, reassert, listed = nil, {}, {}
  if scope == 'private' then
    key = private_backup_key(id, line)
  else
    key = base_key(id, line)
    listed = redis.call('SMEMBERS', reassert_key(id, line))
    for _, uid in ipairs(listed) do reassert[uid] = true end
  end
  local function answer(reply)
    reply[#reply + 1] = #listed
    for _, uid in ipairs(listed) do reply[#reply + 1] = uid end
    return reply
  end
  local size = redis.call('HLEN', key)
  if size == 0 then return answer({version, 0, 0, 0, 0, 0, 0, string.rep('1', count), 0, 0}) end
  local runs, n, settled, found = {}, 0, 0, 0
  -- (A backup holds records, which hold the hash: compared one by one.)
  local hashes = scope ~= 'private'
  for i = FIRST, #ARGV, CHUNK do
    local held = redis.call('HMGET', key, unpack(ARGV, i, math.min(i + CHUNK - 1, #ARGV)))
    local whole = hashes and #listed == 0
    for k = 1, #held do
      if held[k] then found = found + 1 else whole = false end
    end
    local at = (i - FIRST) * REC_HASH_BYTES + 1
    if whole and
        table.concat(held) == string.sub(ARGV[FIRST - 1], at, at + #held * REC_HASH_BYTES - 1) then
      n = n + 1
      runs[n] = string.rep('0', #held)
      settled = settled + #held
    else
      for k = 1, #held do
        local h = held[k]
        if h then h = hashes and held_hash(h) or rec_hash(h) end
        n = n + 1
        if h == compared_hash(i + k - 1) and not reassert[ARGV[i + k - 1]] then
          runs[n] = '0'
          settled = settled + 1
        else
          runs[n] = '1'
        end
      end
    end
  end
  return answer({version, 0, 0, 0, settled, 0, 0, table.concat(runs), found, size})
end
if mode == 'compare' then return compare_with_base() end

-- A scan's answer: a page of the uids the line's base (or backup) holds,
-- from ARGV[14], a cursor of HSCAN's, about ARGV[15] of them, and the
-- cursor to go on from ('0': no more). The gateway finds in them what a
-- snapshot leaves out, so that its prune names only those: one prune that
-- read a 50,000-card base's uids was about 55 ms of Redis in one call. A
-- uid may come twice; one the base held throughout comes at least once.
-- It stores nothing.
local function scan_base()
  local version = stored_version()
  local key = scope == 'private' and private_backup_key(id, line) or base_key(id, line)
  local page = redis.call('HSCAN', key, ARGV[14], 'COUNT', ARGV[15])
  local reply, fields = {version, 0, 0, 0, 0, 0, 0, page[1]}, page[2]
  for i = 1, #fields, 2 do reply[#reply + 1] = fields[i] end
  return reply
end
if mode == 'scan' then return scan_base() end

local added, changed, removed, unchanged = 0, 0, 0, 0
local account = open_account(id)
local hlc = tick_clock(account, now_hlc)
-- The records come made (a concat per card here was a sixth of a book's
-- upload); only an account whose clock is past now stamps them anew.
if with_records and hlc ~= now_hlc then
  for i = FIRST + 2, #ARGV, 3 do ARGV[i] = restamped(ARGV[i], hlc) end
end
-- Their origin is the line's number (ARGV[14]), claimed in the account's
-- table once the call is to store them (after the mass-deletion guard, so
-- that a refused snapshot changes nothing); only a table that gives the
-- number to another origin, or is full, has the line's origin written out
-- in them instead.
local function claim_line_origin()
  if not with_records then return end
  local text = origin_text(carrier, line)
  if claim_origin(id, ARGV[14], text) then return end
  for i = FIRST + 2, #ARGV, 3 do
    if rec_origin_number(ARGV[i]) then ARGV[i] = origin_written_out(ARGV[i], text) end
  end
end
keep_history(keep_ms, keep_count, math.floor(now_hlc / HLC_PER_MS))

-- A snapshot that would remove more than mass_min cards and more than
-- mass_percent of a book of `size` cards needs the phone's confirmation.
local function mass_deletion(would_remove, size)
  return leaves_out and would_remove > mass_min and would_remove > confirmed and
    would_remove * 100 > mass_percent * size
end
local function refuse(would_remove, size) return {0, 0, 0, 0, 0, would_remove, size} end

-- A prune's uids, those its snapshot leaves out.
local function named_uids()
  local uids = {}
  for i = FIRST, #ARGV do uids[#uids + 1] = ARGV[i] end
  return uids
end

-- F7: the private store is this line's backup; what it holds is the base.
if scope == 'private' then
  local key, hkey = private_backup_key(id, line), private_history_key(id, line)
  -- A snapshot reads the whole backup (it removes what it leaves out); a
  -- prune, the entries of what it leaves out; a delta or a removal, its own
  -- uids' entries: a 50,000-card book's 25 deltas each read the whole
  -- backup, 2.7 s of Redis in all.
  local held
  if mode == 'snapshot' then
    held = flat_to_map(redis.call('HGETALL', key))
  elseif mode == 'prune' then
    held = allow_removals and hmget_map(key, named_uids()) or {}
  else
    local uids = {}
    for i = FIRST, #ARGV, STEP do uids[#uids + 1] = ARGV[i] end
    held = hmget_map(key, uids)
  end
  local drops = {}
  if mode == 'remove' then
    for i = FIRST, #ARGV do
      if held[ARGV[i]] then drops[#drops + 1] = ARGV[i] end
    end
  elseif mode == 'prune' then
    -- (What it read is what it leaves out and the backup still holds.)
    for uid in pairs(held) do drops[#drops + 1] = uid end
  elseif mode == 'snapshot' and allow_removals then
    local seen = {}
    for i = FIRST, #ARGV, STEP do seen[ARGV[i]] = true end
    for uid in pairs(held) do
      if not seen[uid] then drops[#drops + 1] = uid end
    end
  end
  if mode ~= 'delta' and #drops > mass_min then
    local size = redis.call('HLEN', key)
    if mass_deletion(#drops, size) then return refuse(#drops, size) end
  end

  claim_line_origin()
  local writes = {}
  if with_records then
    for i = FIRST, #ARGV, 3 do
      local uid, hash = ARGV[i], ARGV[i + 1]
      local cur = held[uid]
      if cur and rec_hash(cur) == hash then
        unchanged = unchanged + 1
      else
        local rec = ARGV[i + 2]
        note_write(hkey, uid, cur, rec)
        writes[#writes + 1] = uid
        writes[#writes + 1] = rec
        if cur then changed = changed + 1 else added = added + 1 end
      end
    end
  end
  for _, uid in ipairs(drops) do
    note_write(hkey, uid, held[uid], make_tombstone(hlc, carrier, line, held[uid]))
  end
  removed = #drops
  hset_flat(key, writes)
  hdel_list(key, drops)
  local any = #writes + #drops > 0
  if any then trim_history(hkey) end
  local version = close_account(account, any)
  collect_if_large(added + changed + removed + unchanged)
  return {version, added, changed, removed, unchanged, 0, 0}
end

-- F2: diff against the line's base, so cards that came from other lines and
-- were never applied here are not read as deletions.
local skey, bkey = shared_key(id), base_key(id, line)
-- A snapshot is compared with the whole base; a delta needs only its own
-- cards' entries (a 100-card delta to a 50,000-card book reads 100, not 50,000);
-- a prune, the entries of what it leaves out (below).
local base = {}
if mode == 'snapshot' then
  base = flat_to_map(redis.call('HGETALL', bkey))
elseif mode == 'delta' then
  local uids = {}
  for i = FIRST, #ARGV, 3 do uids[#uids + 1] = ARGV[i] end
  base = hmget_map(bkey, uids)
end
-- Cards whose pending change the line discarded: it holds its own version,
-- which the shared store does not, so the upload writes it again.
-- (As uid -> true; an empty reply is an empty set already, mostly the case.)
local reassert = redis.call('SMEMBERS', reassert_key(id, line))
if #reassert > 0 then
  local listed = reassert
  reassert = {}
  for _, uid in ipairs(listed) do reassert[uid] = true end
end

-- The removals the request asks for: uids the snapshot leaves out of the
-- base, or those a removal names (a delta names none: nil). A removal takes
-- away only the version the line has seen (its base); a newer one stays, is
-- reported as a conflict and is offered to the line again.
local removals, gone, conflicts, current = nil, nil, nil, nil
if mode ~= 'delta' then
  local candidates = {}
  if mode == 'remove' then
    for i = FIRST, #ARGV do candidates[#candidates + 1] = ARGV[i] end
  elseif allow_removals and mode == 'prune' then
    -- What the snapshot leaves out and the base still holds (the line may
    -- have taken or dropped cards since its scans).
    base = hmget_map(bkey, named_uids())
    for i = FIRST, #ARGV do
      if base[ARGV[i]] then candidates[#candidates + 1] = ARGV[i] end
    end
  elseif allow_removals and next(base) then
    -- (A line with no base, as at its first upload, has nothing to remove.)
    local seen = {}
    for i = FIRST, #ARGV, STEP do seen[ARGV[i]] = true end
    for uid in pairs(base) do
      if not seen[uid] then candidates[#candidates + 1] = uid end
    end
  end
  removals, gone, conflicts = {}, {}, {}
  current = hmget_map(skey, candidates)
  for _, uid in ipairs(candidates) do
    local cur = current[uid]
    if not cur or rec_deleted(cur) then
      gone[#gone + 1] = uid
    else
      local seen_hash = base[uid]
      if mode == 'remove' then seen_hash = redis.call('HGET', bkey, uid) end
      seen_hash = held_hash(seen_hash)
      if seen_hash == rec_hash(cur) then
        removals[#removals + 1] = uid
      else
        conflicts[#conflicts + 1] = {uid, cur, seen_hash and 'changed-since-seen' or 'not-held'}
      end
    end
  end
  if #removals > mass_min and #removals > confirmed then
    local size = 0
    for _, rec in ipairs(redis.call('HVALS', skey)) do
      if not rec_deleted(rec) then size = size + 1 end
    end
    if mass_deletion(#removals, size) then return refuse(#removals, size) end
  end
end

claim_line_origin()
local lc = line_changes(account, line, hlc, carrier)
if with_records then
  -- The line's base settles a card it already holds as uploaded (and did not
  -- discard); the shared versions of the others are read in one go.
  -- (Inline, with a count rather than #: once per card of a book, a call
  -- and a # were 5% of its upload, bench/redis_instructions.)
  local unsettled, n = {}, 0
  for i = FIRST, #ARGV, 3 do
    local uid = ARGV[i]
    if base[uid] ~= ARGV[i + 1] or reassert[uid] then
      n = n + 1
      unsettled[n] = uid
    end
  end
  local shared = hmget_map(skey, unsettled)
  -- The cards the line puts, by their place in ARGV, put in one go.
  local puts, n_puts = {}, 0
  for i = FIRST, #ARGV, 3 do
    local uid, hash = ARGV[i], ARGV[i + 1]
    if base[uid] == hash and not reassert[uid] then
      unchanged = unchanged + 1
    else
      local cur = shared[uid]
      local live = cur and not rec_deleted(cur)
      if live and rec_hash(cur) == hash then
        unchanged = unchanged + 1
        line_holds(lc, uid, hash)
      else
        n_puts = n_puts + 1
        puts[n_puts] = i
        if live then changed = changed + 1 else added = added + 1 end
      end
    end
  end
  line_puts(lc, ARGV, puts, n_puts, shared)
end
if removals then
  for _, uid in ipairs(removals) do line_remove(lc, uid, current[uid]) end
  removed = #removals
  for _, uid in ipairs(gone) do line_drops(lc, uid) end
  -- A conflict's version is no longer the line's to hold.
  for _, c in ipairs(conflicts) do lc.base_dels[#lc.base_dels + 1] = c[1] end
end

-- What the line uploaded settles what it had discarded: a prune, what its
-- snapshot leaves out (the uids it names); the snapshot's other parts, their
-- own cards.
if mode == 'snapshot' then
  redis.call('DEL', reassert_key(id, line))
elseif next(reassert) then
  local done = {}
  for i = FIRST, #ARGV, STEP do done[#done + 1] = ARGV[i] end
  call_in_chunks('SREM', reassert_key(id, line), done)
end

finish_line_changes(lc)
-- A conflict's current version goes back to the line as pending (after
-- finish_line_changes, which clears the entries of the uids the line touched),
-- numbered like this call's other offers (before close_account, which moves
-- the version on to that number).
local seq = conflicts and #conflicts > 0 and offer_seq(account)
-- Every change touches the line's uids, and so does a base moved without
-- one (the line holds a card or no longer holds one): that moves the
-- version on too, as the line's mailbox changed (mailbox_tag).
local reply = {close_account(account, lc.n_touched > 0), added, changed, removed, unchanged,
               0, 0}
if seq then
  for _, c in ipairs(conflicts) do
    offer(id, line, {c[1], c[2]}, seq)
    reply[#reply + 1] = c[1]
    reply[#reply + 1] = c[3]
  end
end
collect_if_large(added + changed + removed + unchanged)
return reply
