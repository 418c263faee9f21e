-- Prepended to every simsync script at build time: key names, the record
-- format of core/record.hpp, the pending-mailbox rule shared by the flows, and
-- what an incoming outbox entry does (apply_incoming.lua applies many).
-- Redis scripts may not create globals, so everything here is local.

-- Keys (DESIGN.md section 6). The idcode is the hash tag of a user's keys.
local function acct_key(id) return 'acct:{' .. id .. '}' end
local function sims_key(id) return 'sims:{' .. id .. '}' end
local function shared_key(id) return 'shared:{' .. id .. '}' end
local function history_key(id) return 'history:{' .. id .. '}' end
local function dir_key(id) return 'dir:{' .. id .. '}' end
local function private_key(id, line) return 'private:{' .. id .. '}:' .. line end
local function pending_key(id, line) return 'pending:{' .. id .. '}:' .. line end
local function base_key(id, line) return 'base:{' .. id .. '}:' .. line end
local function fetched_key(id, line) return 'fetched:{' .. id .. '}:' .. line end
local function line_key(id, line) return 'line:{' .. id .. '}:' .. line end
-- uids whose pending change the line discarded: its next upload re-asserts them.
local function reassert_key(id, line) return 'reassert:{' .. id .. '}:' .. line end
local function sim_key(msisdn) return 'sim:' .. msisdn end
-- The carrier's one owner of an msisdn, kept at the shard the msisdn routes to
-- (config::shard_of_msisdn), whichever node holds the owner's account.
local function claim_key(msisdn) return 'claim:' .. msisdn end
-- The uids of a paged fetch, in page order (fetch_pending.lua).
local function fetchlist_key(id, line) return 'fetchlist:{' .. id .. '}:' .. line end
local function outbox_key(peer) return 'outbox:' .. peer end

-- Errors the C++ side maps to simsync::ec (store/account_store.cpp).
local function fail(code) return redis.error_reply('SIMSYNC ' .. code) end

-- Records: HLC(16)|HASH(32)|L or D|carrier|line|card
local TOMBSTONE_HASH = string.rep('0', 32)
local function rec_hlc(r) return string.sub(r, 1, 16) end
local function rec_hash(r) return string.sub(r, 18, 49) end
local function rec_deleted(r) return string.byte(r, 51) == 68 end -- 'D'
local function rec_origin(r)
  local bar = string.find(r, '|', 53, true)
  local bar2 = string.find(r, '|', bar + 1, true)
  return string.sub(r, 53, bar - 1), string.sub(r, bar + 1, bar2 - 1)
end
local function make_record(hlc, hash, deleted, carrier, line, card)
  return string.format('%016d|%s|%s|%s|%s|', hlc, hash, deleted and 'D' or 'L', carrier,
                       line) .. card
end

-- Byte order, whatever the server's locale (Lua's < on strings uses strcoll).
local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- Is a's stamp (hlc, carrier, line) newer than b's? Same order as core::stamp.
local function newer(a, b)
  local ha, hb = rec_hlc(a), rec_hlc(b)
  if ha ~= hb then return bytes_less(hb, ha) end -- fixed width: byte order is numeric
  local ca, la = rec_origin(a)
  local cb, lb = rec_origin(b)
  if ca ~= cb then return bytes_less(cb, ca) end
  return bytes_less(lb, la)
end

local function same_content(a, b)
  local da = rec_deleted(a)
  if da ~= rec_deleted(b) then return false end
  return da or rec_hash(a) == rec_hash(b)
end

-- HSET/HDEL of many fields, in chunks that fit Lua's C stack.
local CHUNK = 1000
local function hset_flat(key, flat)
  for i = 1, #flat, CHUNK do
    redis.call('HSET', key, unpack(flat, i, math.min(i + CHUNK - 1, #flat)))
  end
end
local function hdel_list(key, fields)
  for i = 1, #fields, CHUNK do
    redis.call('HDEL', key, unpack(fields, i, math.min(i + CHUNK - 1, #fields)))
  end
end

-- The values of `fields` in a hash that holds them, as field -> value.
local function hmget_map(key, fields)
  local map = {}
  for i = 1, #fields, CHUNK do
    local last = math.min(i + CHUNK - 1, #fields)
    local values = redis.call('HMGET', key, unpack(fields, i, last))
    for j = i, last do
      if values[j - i + 1] then map[fields[j]] = values[j - i + 1] end
    end
  end
  return map
end

local function flat_to_map(flat)
  local map = {}
  for i = 1, #flat, 2 do map[flat[i]] = flat[i + 1] end
  return map
end

-- The account's hybrid logical clock: past every stamp it has written or taken.
local function tick_clock(id, now_hlc)
  local last = tonumber(redis.call('HGET', acct_key(id), 'clock') or '0')
  local hlc = math.max(now_hlc, last + 1)
  redis.call('HSET', acct_key(id), 'clock', string.format('%d', hlc))
  return hlc
end
local function observe_clock(id, hlc)
  local last = tonumber(redis.call('HGET', acct_key(id), 'clock') or '0')
  if hlc > last then redis.call('HSET', acct_key(id), 'clock', string.format('%d', hlc)) end
end

-- A version that lost to a concurrent edit, kept for the account's history.
local function keep_in_history(id, uid, rec)
  redis.call('XADD', history_key(id), 'MAXLEN', '~', '1000', '*', 'uid', uid, 'rec', rec)
end

-- What a change means to a line: 'added', 'changed', 'removed', or nil when
-- the line already holds exactly that (its base says so).
local function classify(id, line, uid, rec)
  local have = redis.call('HGET', base_key(id, line), uid)
  if rec_deleted(rec) then
    if have then return 'removed' end
    return nil
  end
  if not have then return 'added' end
  if have == rec_hash(rec) then return nil end
  return 'changed'
end

-- Offers changes ({uid, record} pairs) to one line's pending mailbox. An entry
-- already pending for a uid is always replaced, so the newest version wins;
-- otherwise a change the line already holds is not offered. An entry holds
-- only the batch's sequence number (so an ack removes only what was fetched),
-- not the record: every change offered is what its script has just written
-- to the shared store, and a line's own upload drops its entries for the uids
-- it touches, so shared[uid] is the pending change whenever an entry exists
-- (or, after an identical replicate_in, the same content with a newer stamp).
-- A copy of the record here cost the card's size again for every line.
local function offer(id, line, changes)
  local pkey = pending_key(id, line)
  local seq = nil
  local flat = {}
  for i = 1, #changes, 2 do
    local uid, rec = changes[i], changes[i + 1]
    if redis.call('HEXISTS', pkey, uid) == 1 or classify(id, line, uid, rec) then
      seq = seq or redis.call('HINCRBY', line_key(id, line), 'seq', 1)
      flat[#flat + 1] = uid
      flat[#flat + 1] = seq
    end
  end
  hset_flat(pkey, flat)
end

-- Offers changes to every line of the account but `skip_line` (the uploader).
local function offer_to_lines(id, changes, skip_line)
  if #changes == 0 then return end
  for _, line in ipairs(redis.call('SMEMBERS', sims_key(id))) do
    if line ~= skip_line then offer(id, line, changes) end
  end
end

-- Netstrings ("<len>:<bytes>") of uid, record pairs: one outbox entry.
local function batch_blob(changes)
  local parts = {}
  for i = 1, #changes do
    parts[#parts + 1] = #changes[i] .. ':' .. changes[i]
  end
  return table.concat(parts)
end

-- The inverse of batch_blob; nil unless every item is a well-formed record.
local function valid_record(r)
  return #r >= 54 and string.find(r, '^%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d|%x+|[LD]|') == 1
    and string.byte(r, 50) == 124 and string.find(r, '|', 53, true) ~= nil
    and string.find(r, '|', string.find(r, '|', 53, true) + 1, true) ~= nil
end
local function parse_batch(blob)
  local items, pos = {}, 1
  while pos <= #blob do
    local colon = string.find(blob, ':', pos, true)
    local digits = colon and string.match(string.sub(blob, pos, colon - 1), '^%d+$')
    local len = digits and tonumber(digits)
    if not len or colon + len > #blob then return nil end
    items[#items + 1] = string.sub(blob, colon + 1, colon + len)
    pos = colon + len + 1
  end
  if #items % 2 ~= 0 then return nil end
  for i = 2, #items, 2 do
    if not valid_record(items[i]) then return nil end
  end
  return items
end

-- Tells a peer carrier that this carrier holds an account for the idcode.
local function announce(id, peer)
  redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'announce')
end

-- Tells a peer carrier that this carrier no longer holds the account.
local function retire(id, peer)
  redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'retire')
end

local function send_to_siblings(id, changes)
  if #changes == 0 then return end
  local peers = redis.call('SMEMBERS', dir_key(id))
  if #peers == 0 then return end
  local blob = batch_blob(changes)
  for _, peer in ipairs(peers) do
    redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'batch', 'batch', blob)
  end
end

-- A pending entry's sequence number. Entries written before the mailbox held
-- references are "seq:record"; their record is the shared one as well (the
-- same writers kept both), so only the digits before the ':' are used.
local function pending_seq(value)
  return string.match(value, '^%d+')
end

-- A line's pending mailbox as parallel lists of uids and sequence numbers, and
-- uid -> record from the shared store (one HMGET). A uid missing from shared is
-- missing from the map: the caller treats that entry as stale.
local function read_pending(id, line)
  local flat = redis.call('HGETALL', pending_key(id, line))
  local uids, seqs = {}, {}
  for i = 1, #flat, 2 do
    uids[#uids + 1] = flat[i]
    seqs[#seqs + 1] = pending_seq(flat[i + 1])
  end
  return uids, seqs, hmget_map(shared_key(id), uids)
end

-- A fetched entry, "seq:hash:base" or "seq:D:base": what an ack removes and
-- applies, and the line's base for the uid when it was fetched ('-': none), so
-- an ack never moves a base that a later upload of the line has moved. An
-- entry written before the base was kept ("seq:what") gives base nil.
local function split_fetched(value)
  local colon = string.find(value, ':', 1, true)
  local seq, rest = string.sub(value, 1, colon - 1), string.sub(value, colon + 1)
  local colon2 = string.find(rest, ':', 1, true)
  if not colon2 then return seq, rest, nil end
  return seq, string.sub(rest, 1, colon2 - 1), string.sub(rest, colon2 + 1)
end

-- -- incoming outbox entries of a sibling carrier ------------------------------

-- F4 receive: compare, then copy. A change from a sibling carrier is taken
-- only if its stamp is newer; if its content differs, it goes into the
-- pending mailbox of every line of the account. `items` is a parsed batch
-- (parse_batch). Idempotent: a change already taken has the same stamp and
-- counts as identical. Returns applied, identical, stale.
local function replicate_in(id, items)
  -- No account here (any more): nothing to apply; a later registration is
  -- bootstrapped with the whole store.
  if redis.call('EXISTS', acct_key(id)) == 0 then return 0, 0, #items / 2 end

  local skey = shared_key(id)
  local changes = {}
  local applied, identical, stale = 0, 0, 0
  local max_hlc = 0
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
          if cc ~= rc or cl ~= rl then keep_in_history(id, uid, cur) end
        end
        changes[#changes + 1] = uid
        changes[#changes + 1] = rec
        applied = applied + 1
      end
    elseif same_content(rec, cur) then
      identical = identical + 1
    else
      keep_in_history(id, uid, rec)
      stale = stale + 1
    end
  end

  observe_clock(id, max_hlc)
  if #changes > 0 then
    redis.call('HINCRBY', acct_key(id), 'version', 1)
    offer_to_lines(id, changes, nil)
  end
  return applied, identical, stale
end

-- F1 announce received: `peer` has an account for this idcode. If this
-- carrier has one too, the new sibling is bootstrapped with the whole shared
-- store (tombstones too) and told about this account in return; the second
-- announcement finds the sibling known, so the exchange ends there (and a
-- repeated announcement changes nothing). Returns sibling_added, records_sent.
local function add_sibling(id, peer)
  if redis.call('SADD', dir_key(id), peer) == 0 then return 0, 0 end
  if redis.call('EXISTS', acct_key(id)) == 0 then return 1, 0 end
  announce(id, peer)
  local all = redis.call('HGETALL', shared_key(id))
  if #all > 0 then
    redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'batch', 'batch',
               batch_blob(all))
  end
  return 1, #all / 2
end

-- A peer carrier no longer holds an account for this idcode: stop sending
-- it changes. Returns sibling_removed (0 when it was not one: idempotent).
local function remove_sibling(id, peer)
  return redis.call('SREM', dir_key(id), peer)
end
