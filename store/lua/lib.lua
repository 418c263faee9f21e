-- The head of the simsync function library (store/scripts.cpp), run once
-- when a server loads it; every other file here is the body of one function
-- of the library. Before it come the key names (<name>_key) and the failures
-- made from store/contract/ (cmake/store_contract.cmake). Here: the record
-- format of core/record.hpp, the pending-mailbox rule shared by the flows,
-- and what an incoming outbox entry does (apply_incoming.lua applies many).
-- A library may not create globals, so everything here is local, and while
-- it loads only `redis` is there to call (no string.*): what this part
-- computes at load time is written out.
-- A decimal this library wrote, the node passed, or a pattern has checked
-- is read as `text + 0`: one parse, where tonumber() parses it twice and is
-- a call (about 1,200 instructions more per number; an edit reads several).

-- A failure C++ maps to a simsync::ec (store/contract/failures.list, whose
-- FAILURES is at the library's head), with what the caller may show of it.
local function fail(name, context)
  if not FAILURES[name] then
    error('fail: ' .. name .. ' is not in store/contract/failures.list')
  end
  if context == nil then return redis.error_reply('SIMSYNC ' .. name) end
  return redis.error_reply('SIMSYNC ' .. name .. ' ' .. context)
end

-- Who may act on a line: the request carries the SHA-256 (hex) of the SIM
-- token it presented, and the script that does the work compares it with the
-- line's own (sim:<line>: id, token), so an authorized request costs one
-- round trip. A plain comparison is safe here: timing could at most reveal
-- the stored hash, and a token cannot be made from its hash.
-- check_access.lua is the same check alone, for the reads done in C++.
-- Returns the error to answer, or nil.
local function access_refused(id, line, token_hash)
  local owner, token = unpack(redis.call('HMGET', sim_key(line), 'id', 'token'))
  if owner ~= id or token ~= token_hash then return fail('bad_token') end
  return nil
end
-- The carrier's own access, for retiring a line (remove_line.lua): no SHA-256
-- in hex equals it, so no token presented can.
local OPERATOR_PROOF = 'operator'

-- Records: HLC|HASH|FLAG|carrier|line|card, or the compact form the store
-- keeps, FLAG HLC HASH carrier|line|card, or FLAG HLC HASH MARK NUMBER card
-- with the origin as its number in the account's table of origins
-- (store/contract/record.list, whose REC_ constants say where each part is,
-- and which makes the accessors rec_hlc, rec_hlc_value, rec_hash,
-- rec_deleted and rec_origin_at, each reading any form). A tombstone's card
-- is the stamp of the version it removes: HLC|carrier|line. Records are
-- written compact, here and by the node (which numbers the origins of what
-- it writes: claim_origin); the text form is read in records kept before
-- it, and in those stamped past 2^53 (core/record.hpp). A hash is its 16
-- bytes throughout the scripts: in records, in a line's base, in an
-- upload's arguments.

-- Where a record was written, as history notes it (HIST_ORIGIN): carrier
-- and line, REC_SEP between (C++ passes it to apply_incoming).
local function origin_text(carrier, line) return carrier .. REC_SEP .. line end

-- The account whose table of origins names the numbered origins read in
-- this call (use_origins; begin_call forgets it), and what was read of it:
-- number -> origin text (made anew for each account).
local origins_of, origin_names = nil, nil
local function use_origins(id)
  if origins_of ~= id then origins_of, origin_names = id, {} end
end
-- The origin text number `number` names in the account's table, or nil.
local function known_origin(number)
  if not origins_of then error('a numbered origin read before its account was named') end
  local text = origin_names[number]
  if text then return text end
  text = redis.call('HGET', origins_key(origins_of), number)
  if text then origin_names[number] = text end
  return text
end
-- known_origin, where a number the table does not name is a store written
-- wrong: the call stops rather than misread a stamp.
local function named_origin(number)
  local text = known_origin(number)
  if not text then error('a record names an origin number its account does not hold') end
  return text
end
-- A compact record's origin number, or nil when its head writes it out.
local function rec_origin_number(r)
  if rec_origin_at(r) == REC_COMPACT_ORIGIN_AT and
      string.byte(r, REC_COMPACT_ORIGIN_AT) == REC_ORIGIN_NUMBER_MARK_BYTE then
    return string.sub(r, REC_COMPACT_ORIGIN_AT + 1, REC_NUMBERED_BODY_AT - 1)
  end
  return nil
end

-- A record's origin_text. The last one made is kept, and found again
-- without making its strings anew when the next record starts with it: the
-- records of a batch mostly come from one line (a sibling's apply of a book
-- made them for every card).
local last_origin, last_origin_head
local function rec_origin_text(r)
  local number = rec_origin_number(r)
  if number then return named_origin(number) end
  local at = rec_origin_at(r)
  if last_origin and string.find(r, last_origin_head, at, true) == at then
    return last_origin
  end
  local bar = string.find(r, REC_SEP, at, true)
  local bar2 = string.find(r, REC_SEP, bar + 1, true)
  last_origin = string.sub(r, at, bar2 - 1)
  last_origin_head = last_origin .. REC_SEP
  return last_origin
end
-- The record's origin (carrier, line).
local function rec_origin(r)
  local text = rec_origin_text(r)
  local bar = string.find(text, REC_SEP, 1, true)
  return string.sub(text, 1, bar - 1), string.sub(text, bar + 1)
end
-- "HLC|carrier|line": the stamp of a record.
local function rec_stamp(r)
  return rec_hlc(r) .. REC_SEP .. rec_origin_text(r)
end
-- Where a record's card (or the stamp a tombstone removes) starts.
local function rec_card_at(r)
  if rec_origin_number(r) then return REC_NUMBERED_BODY_AT end
  local at = rec_origin_at(r)
  local bar = string.find(r, REC_SEP, at, true)
  return string.find(r, REC_SEP, bar + 1, true) + 1
end
-- A record's card (or the stamp a tombstone removes).
local function rec_card(r)
  return string.sub(r, rec_card_at(r))
end
-- `r` with its origin written out, `text` (its origin_text), in place of
-- the number a compact record's head writes it as.
local function origin_written_out(r, text)
  return string.sub(r, 1, REC_COMPACT_ORIGIN_AT - 1) .. text .. REC_SEP ..
           string.sub(r, REC_NUMBERED_BODY_AT)
end
-- An account's table of origins names at most this many: a person's lines
-- at every carrier are a few, and every reader of the account's records
-- reads the whole table, so a peer that sends origins without end (each a
-- line it made up) does not make every read of the account longer. The
-- origins past it are written out in their records.
local ORIGINS_KEPT = 64
-- `r` as the link reads it (store/outbox.cpp): a numbered origin written
-- out as the account's table names it (use_origins), any other record as
-- it is.
local function rec_as_read(r)
  local number = rec_origin_number(r)
  local text = number and known_origin(number)
  if text then return origin_written_out(r, text) end
  return r
end
-- The node numbers the origins of the records it hands a call
-- (core::origin_number), and claims each number for its origin's text: the
-- account's table must name that origin by it, and one not there yet is
-- added while the table names fewer than ORIGINS_KEPT. False when the table
-- holds the number for another origin (two origins may share one) or is
-- full: the records of this one must be written out (origin_written_out)
-- before they are stored.
local function claim_origin(id, number, text)
  use_origins(id)
  local held = origin_names[number] or redis.call('HGET', origins_key(id), number)
  if not held then
    if redis.call('HLEN', origins_key(id)) >= ORIGINS_KEPT then return false end
    redis.call('HSET', origins_key(id), number, text)
    held = text
  end
  origin_names[number] = held
  return held == text
end
-- A hash a line's base or an upload holds: its bytes, as rec_hash gives
-- them (a base written before the compact form holds hex digits).
local function held_hash(h)
  if h and #h ~= REC_HASH_BYTES then return hash_bytes(h) end
  return h
end
-- A record the scripts make is in the compact form: its flag, then
-- hlc_bytes(hlc), the hash's bytes (rec_hash) and origin_tail(...), then the
-- card. A call that writes many records of one line makes the head and the
-- tail once.
local function hlc_bytes(hlc) return struct.pack(REC_HLC_BYTES_FORMAT, hlc) end
local function origin_tail(carrier, line) return carrier .. REC_SEP .. line .. REC_SEP end
local function make_record(hlc, hash, deleted, carrier, line, card)
  return (deleted and REC_TOMBSTONE or REC_LIVE) .. hlc_bytes(hlc) .. hash ..
           origin_tail(carrier, line) .. card
end
-- `r` stamped `hlc` instead, in its own form (its origin as it was).
local function restamped(r, hlc)
  if rec_origin_at(r) == REC_COMPACT_ORIGIN_AT then
    return string.sub(r, 1, REC_COMPACT_HLC_AT - 1) .. hlc_bytes(hlc) ..
             string.sub(r, REC_COMPACT_HLC_AT + REC_HLC_BYTES)
  end
  return string.format(REC_HLC_FORMAT, hlc) .. string.sub(r, REC_HLC_DIGITS + 1)
end
-- A removal of `removed`, the version its author had seen.
local function make_tombstone(hlc, carrier, line, removed)
  return make_record(hlc, REC_ZERO_HASH_BYTES, true, carrier, line, rec_stamp(removed))
end

-- Byte order, whatever the server's locale (Lua's < on strings uses strcoll).
local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- A record's place in the order of core::supersedes, as a list compared item
-- by item: a live version by its stamp; a tombstone just after the version
-- it removes (rank 1), then by its own stamp. A tombstone written before
-- removals named their version removes its own stamp.
local function order_key(r)
  local carrier, line = rec_origin(r)
  local own = {rec_hlc(r), carrier, line}
  if not rec_deleted(r) then return {own[1], own[2], own[3], 0} end
  local removed = rec_card(r)
  if removed == '' then return {own[1], own[2], own[3], 1, own[1], own[2], own[3]} end
  local bar = string.find(removed, REC_SEP, REC_HLC_DIGITS + 2, true)
  return {string.sub(removed, 1, REC_HLC_DIGITS), string.sub(removed, REC_HLC_DIGITS + 2, bar - 1),
          string.sub(removed, bar + 1), 1, own[1], own[2], own[3]}
end

-- Does `a` take the place of `b`? (core::supersedes). HLCs in order keys
-- are the text form's, fixed width, so their byte order is numeric.
local function newer(a, b)
  -- Two live versions sort by stamp, HLC first, and most differ there: that
  -- decides without building order keys (a sibling's apply of one card spent
  -- 7% of its instructions on them). As doubles, two 16-digit HLCs that
  -- differ may round to one value, never to the other order; equal ones go
  -- the whole way.
  if not rec_deleted(a) and not rec_deleted(b) then
    local x, y = rec_hlc_value(a), rec_hlc_value(b)
    if x ~= y then return x > y end
  end
  local ka, kb = order_key(a), order_key(b)
  for i = 1, math.max(#ka, #kb) do
    local x, y = ka[i], kb[i]
    if x == nil then return false end
    if y == nil then return true end
    if x ~= y then
      if i == 4 then return x > y end
      return bytes_less(y, x)
    end
  end
  return false
end

local function same_content(a, b)
  local da = rec_deleted(a)
  if da ~= rec_deleted(b) then return false end
  return da or rec_hash(a) == rec_hash(b)
end

-- Lua's collector is incremental: it pays for garbage as new allocations
-- come, so a call that made much of it (a book's upload or apply) leaves its
-- collection to the calls after it, whoever's they are (a 100-edit delta
-- right after a 50,000-card book: its call 12 ms instead of 3, all of it
-- Lua). Such a call collects before it returns, where the cost is its own.
local LARGE_CALL_CARDS = 1000
local function collect_if_large(cards)
  if cards > LARGE_CALL_CARDS then collectgarbage() end
end

-- Commands of many arguments go in chunks that fit Lua's C stack (unpack's
-- bound, about 8,000 values).
local CHUNK = 1000
-- `command` on `key` with `items` as its further arguments, CHUNK at a time
-- (RPUSH, SADD, SREM, HDEL: one item an argument; none for no items).
local function call_in_chunks(command, key, items)
  for i = 1, #items, CHUNK do
    redis.call(command, key, unpack(items, i, math.min(i + CHUNK - 1, #items)))
  end
end
-- Redis keeps a hash as a listpack while it has at most
-- hash-max-listpack-entries fields (store/redis-settings.conf) and no value
-- longer than hash-max-listpack-value (64 bytes); each field set scans a
-- listpack whole. A write of more fields than a listpack holds makes the
-- hash a table anyway, but only after its first fields were each set by a
-- scan of those before (a fifth of a 500-card upload's instructions, for the
-- line's base): so such a write first sets a field with a value too long for
-- a listpack, which makes the hash a table at once, and deletes it after.
-- Its name, '', is no uid (a card without one is given one), and the hashes
-- written in bulk are all keyed by uid.
local LISTPACK_ENTRIES = 128
local TABLE_NOW = '-----------------------------------------------------------------' -- 65
-- (flat[first..last] if given: field, value pairs.)
local function hset_flat(key, flat, first, last)
  first, last = first or 1, last or #flat
  local as_table = (last - first + 1) / 2 > LISTPACK_ENTRIES
  if as_table then redis.call('HSET', key, '', TABLE_NOW) end
  for i = first, last, CHUNK do
    redis.call('HSET', key, unpack(flat, i, math.min(i + CHUNK - 1, last)))
  end
  if as_table then redis.call('HDEL', key, '') end
end
-- Many fields are read or deleted only in a hash that exists: a new book's
-- store, a new line's base and a line's explicit offers (mostly none) are
-- empty, and each field would be an argument made and answered for nothing.
local FIELDS_WORTH_AN_EXISTS = 32
-- Whether a hash that `count` fields are read from or deleted in may hold
-- any: asked only for many fields.
local function may_hold(key, count)
  return count < FIELDS_WORTH_AN_EXISTS or redis.call('EXISTS', key) == 1
end
local function hdel_list(key, fields)
  if not may_hold(key, #fields) then return end
  call_in_chunks('HDEL', key, fields)
end

-- The values of `fields` in a hash that holds them, as field -> value.
-- One field is an HGET: HMGET's reply is a table, which cost an edit's
-- upload about 1.5% per read (bench/redis_instructions). Many are read only
-- in a hash that exists (FIELDS_WORTH_AN_EXISTS).
-- (`exists`: the caller asked may_hold already.)
local function hmget_map(key, fields, exists)
  local map = {}
  if #fields == 1 then
    local value = redis.call('HGET', key, fields[1])
    if value then map[fields[1]] = value end
    return map
  end
  if not exists and not may_hold(key, #fields) then return map end
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

-- Netstrings ("<len>:<bytes>" each) of a list of strings, and back (nil
-- unless the whole blob is well formed).
--
-- "<len>:" for each length up to 4 kB, made once per server: Lua makes a
-- string of a number with sprintf, and those lengths were a fifth of a
-- 500-card upload's instructions in Redis. A record is rarely longer.
local length_colon = {}
local function length_head(len)
  local head = length_colon[len]
  if not head then
    head = string.format('%d:', len)
    if len <= 4096 then length_colon[len] = head end
  end
  return head
end
local function netstrings(list, first, last)
  -- Head and item as two parts, so that no item is copied into a string of
  -- its own before the one concat (a batch can hold 100,000 items).
  local parts, n = {}, 0
  for i = first or 1, last or #list do
    local item = list[i]
    parts[n + 1], parts[n + 2] = length_colon[#item] or length_head(#item), item
    n = n + 2
  end
  return table.concat(parts)
end
local function split_netstrings(blob)
  local items, n, pos, size = {}, 0, 1, #blob
  while pos <= size do
    -- One spelling per length, as netstrings() writes it: "0", not "00".
    -- (One match per item, its length used as a number without tonumber:
    -- each C function a call makes costs as much as the item's other work.)
    local digits, at = string.match(blob, '^([1-9]%d*):()', pos)
    if not digits then
      at = string.match(blob, '^0:()', pos)
      digits = 0
    end
    if not at then return nil end
    local last = at + digits - 1
    if last > size then return nil end
    n = n + 1
    items[n] = string.sub(blob, at, last)
    pos = last + 1
  end
  return items
end

-- An account's hybrid logical clock (past every stamp it has written or
-- taken), its version (moved on by every change) and when its history was
-- last trimmed to the policy's age (trim_history), read once when a call
-- starts on the account and written once when it is done with it: each
-- command a script calls costs as much as a small one's whole work.
-- nil when there is no account (every account has both: register_line.lua).
-- Stamps count HLC_PER_MS logical ticks per millisecond (core/stamp.hpp).
local HLC_PER_MS = 1000
-- The history id after which the account's lines' mailboxes are read from
-- its history: its last entry's, or '0-0'.
local function history_end(id)
  local last = redis.call('XREVRANGE', history_key(id), '+', '-', 'COUNT', 1)
  return last[1] and last[1][1] or '0-0'
end
local function open_account(id)
  local clock, version, trimmed, mailbox_from = unpack(redis.call(
    'HMGET', account_key(id), 'clock', 'version', 'history_trimmed_ms', 'mailbox_from'))
  if not version then return nil end
  use_origins(id)
  -- The first call of this release on an account made before it: its lines'
  -- mailboxes are read from the history after this point, before which every
  -- offer was written to them (read_pending).
  if not mailbox_from then
    redis.call('HSET', account_key(id), 'mailbox_from', history_end(id))
  end
  return {id = id, clock = (clock or 0) + 0, version = version + 0,
          history_trimmed_ms = (trimmed or 0) + 0}
end
-- The stamp for this call's own writes.
local function tick_clock(account, now_hlc)
  account.clock = math.max(now_hlc, account.clock + 1)
  return account.clock
end
-- A stamp taken from another carrier: kept even if nothing changed (an
-- identical change moves the stored stamp).
local function observe_clock(account, hlc)
  if hlc > account.clock then
    account.clock = hlc
    account.observed = true
  end
end
-- Writes what moved; returns the account's version, one more if `changed` or
-- if the call offered changes to a mailbox (offer_seq). A tick of this call's
-- own that stamped nothing need not be kept: an upload that changes nothing
-- writes nothing.
local function close_account(account, changed)
  changed = changed or account.offered
  local key, trimmed = account_key(account.id), nil
  if account.trimmed_now then trimmed = string.format('%d', account.history_trimmed_ms) end
  -- Each case its own HSET, not one of a table of fields: an edit closes one.
  if changed then
    account.version = account.version + 1
    -- (offer_seq wrote this very number already)
    local clock, version = string.format('%d', account.clock),
      account.offered or string.format('%d', account.version)
    if trimmed then
      redis.call('HSET', key, 'clock', clock, 'version', version, 'history_trimmed_ms', trimmed)
    else
      redis.call('HSET', key, 'clock', clock, 'version', version)
    end
  elseif account.observed then
    local clock = string.format('%d', account.clock)
    if trimmed then
      redis.call('HSET', key, 'clock', clock, 'history_trimmed_ms', trimmed)
    else
      redis.call('HSET', key, 'clock', clock)
    end
  elseif trimmed then
    redis.call('HSET', key, 'history_trimmed_ms', trimmed)
  end
  return account.version
end

-- -- history ------------------------------------------------------------------

-- Every change to a store is noted in its history stream (the account's for
-- the shared store, the line's for its private backup), with the version it
-- replaced or removed: what GET .../history lists and what a restore rolls
-- back. Its fields are the HIST_ constants (store/contract/history.list):
-- the kind (added, changed, removed; lost: an edit that lost to a concurrent
-- one and never was the book's), the change's origin (rec_origin_text), the
-- uid, the version replaced or removed (the loser for lost). Additions
-- replace nothing, so a script's additions from one origin share one entry,
-- their uids as netstrings (a 500-card upload is one entry, not 500), with
-- their count; they are written before any other change noted in the
-- same stream, and at the latest by trim_history, so the stream keeps the
-- order of the changes. The entry id is the time of the change here.
-- stream key -> {order = {origin, ...}, [origin] = {uid, ...}}.
local additions = {}
-- What a history keeps (the node's [history] policy: younger than keep_ms,
-- at most keep_count entries, both as the caller gave them: keep_count is
-- the decimal that XADD's MAXLEN takes, and keep_ms is read as a number only
-- by a trim, once an hour per account) and the time now (ms): set by
-- keep_history in each function that writes a history, before it writes one.
local keep_ms, keep_count, keep_now = nil, nil, nil
-- The library outlives a call, so every function starts with begin_call: a
-- call that failed half-way must not leave its state to the next.
local function begin_call()
  additions = {}
  keep_ms, keep_count, keep_now = nil, nil, nil
  origins_of = nil
end
local function keep_history(ms, count, now_ms)
  keep_ms, keep_count, keep_now = ms, count, now_ms
end

-- Appends an entry; the count bound is kept by the append itself.
local function history_add(key, ...)
  redis.call('XADD', key, 'MAXLEN', keep_count, '*', ...)
end

local function write_additions(key)
  local waiting = additions[key]
  if not waiting then return end
  additions[key] = nil
  for _, origin in ipairs(waiting.order) do
    local uids = waiting[origin]
    history_add(key, HIST_KIND, 'added', HIST_ORIGIN, origin, HIST_COUNT, uids.n, HIST_UIDS,
                netstrings(uids))
  end
end

-- The uids added from `origin` that wait to be written to history `key` as
-- one entry (write_additions), counted in .n, not #. A caller that adds many
-- cards appends to it in its own loop (line_puts, replicate_in): a call per
-- card was a sixth of a book's upload (bench/redis_instructions). Any other
-- change noted in `key` writes the list and drops it, so such a caller takes
-- the list again after noting one.
local function additions_for(key, origin)
  local waiting = additions[key]
  if not waiting then
    waiting = {order = {}}
    additions[key] = waiting
  end
  local uids = waiting[origin]
  if not uids then
    uids = {n = 0}
    waiting[origin] = uids
    waiting.order[#waiting.order + 1] = origin
  end
  return uids
end

-- `origin` is rec_origin_text of the record noted.
local function note_change(key, uid, kind, origin, previous)
  if kind == 'added' then
    local uids = additions_for(key, origin)
    local n = uids.n + 1
    uids[n], uids.n = uid, n
    return
  end
  write_additions(key)
  history_add(key, HIST_UID, uid, HIST_KIND, kind, HIST_ORIGIN, origin, HIST_PREVIOUS, previous)
end

-- A write of `rec` over `cur` (nil when absent) noted in history `key`: a
-- live record is a change of a live version, else an addition; a tombstone
-- removes a live version. `origin`: rec's rec_origin_text, when the caller
-- has it (a line's changes all have the same one).
local function note_write(key, uid, cur, rec, origin)
  local was_live = cur and not rec_deleted(cur)
  if not rec_deleted(rec) then
    if was_live then
      note_change(key, uid, 'changed', origin or rec_origin_text(rec), cur)
    else
      note_change(key, uid, 'added', origin or rec_origin_text(rec), nil)
    end
  elseif was_live then
    note_change(key, uid, 'removed', origin or rec_origin_text(rec), cur)
  end
end

-- Writes the additions still waiting and drops what is older than the
-- policy keeps (history_add keeps the count). What was dropped can no longer
-- be rolled back: history_reach says how far a restore reaches.
-- An account's shared history is trimmed to the age at most once an hour
-- (close_account keeps when), since a trim per write was 3% of a one-card
-- edit's work in Redis: a change outlives the policy (days) by at most that
-- hour, plus until the next write, as it always did. A private history
-- (no `account`) is trimmed at every write: private uploads are rare.
local TRIM_EVERY_MS = 3600 * 1000
local function trim_history(key, account)
  write_additions(key)
  if account then
    if keep_now - account.history_trimmed_ms < TRIM_EVERY_MS then return end
    account.history_trimmed_ms, account.trimmed_now = keep_now, true
  end
  local oldest_kept = math.max(0, keep_now - tonumber(keep_ms))
  redis.call('XTRIM', key, 'MINID', string.format('%d', oldest_kept))
end

-- The earliest instant (ms) a restore may roll history `key` back to: 0 while
-- it has dropped nothing (Redis counts every entry a stream was given), else
-- the time of the oldest entry it still holds (or of its last, once all are
-- gone). Builds before this one kept the instant in meta_key's history_from.
local function history_reach(key, meta_key)
  local from = tonumber(redis.call('HGET', meta_key, 'history_from') or '0')
  if redis.call('EXISTS', key) == 0 then return from end
  local info = flat_to_map(redis.call('XINFO', 'STREAM', key))
  if info['entries-added'] > info.length then
    local oldest = info['first-entry'] and info['first-entry'][1] or info['last-generated-id']
    from = math.max(from, tonumber(string.match(oldest, '^%d+')))
  end
  return from
end

-- What a change means to a line whose base holds `have` for its uid (nil:
-- nothing): 'added', 'changed', 'removed', or nil when the line already holds
-- exactly that.
local function kind_for(have, rec)
  if rec_deleted(rec) then
    if have then return 'removed' end
    return nil
  end
  if not have then return 'added' end
  if held_hash(have) == rec_hash(rec) then return nil end
  return 'changed'
end
-- The uids of changes ({uid, record} pairs), in order.
local function uids_of(changes)
  local uids = {}
  for i = 1, #changes, 2 do uids[(i + 1) / 2] = changes[i] end
  return uids
end

-- The sequence number of offers made at account version `version` (its
-- text), as mailbox entries hold it.
local function seq_of_version(version)
  return 'v' .. version
end

-- The sequence number of this call's offers to the lines' mailboxes: 'v'
-- and the account's version once close_account has moved it on, which it
-- does for every call that offers (even one that changed nothing else: an
-- upload's conflicts). An ack removes an entry only while its number is the
-- one fetched, so a number must never come back for a line: a version never
-- goes back, and the 'v' keeps these apart from the plain numbers of the
-- per-line counter mailboxes were numbered by before (which could run ahead
-- of the version). Not that counter: it was one more command per line
-- offered, 3% of an upload's and 7.6% of an apply's instructions; and the
-- number stays about as short, as every entry stores it.
local function offer_seq(account)
  account.offered = account.offered or string.format('%d', account.version + 1)
  return seq_of_version(account.offered)
end

-- The sequence number of offers made outside a call that changes the
-- account (an ack's pages never delivered, a fold: read_pending): its
-- version as it is. They change nothing the mailbox holds, only how it is
-- kept, so the version need not move; an entry that exists is never
-- renumbered by them.
local function settled_seq(id)
  return seq_of_version(redis.call('HGET', account_key(id), 'version') or '0')
end

-- Offers changes ({uid, record} pairs) to one line's pending mailbox
-- explicitly, where the account's history would not (an upload's conflicts:
-- read_pending). An entry already pending for a uid is always replaced, so
-- the newest version wins; otherwise a change the line already holds is not
-- offered. An entry holds only the call's sequence number `seq` (offer_seq:
-- so an ack removes only what was fetched), not the record: every change
-- offered is what the shared store holds, and a line's own upload drops its
-- entries for the uids it touches, so shared[uid] is the pending change
-- whenever an entry exists.
local function offer(id, line, changes, seq)
  local base = hmget_map(base_key(id, line), uids_of(changes))
  -- The changes new to the line are offered; those it holds (few: a table
  -- made only for them) only over an entry already pending. `flat` gets the
  -- uids offered, each followed by its sequence number once it is known.
  local flat, n, held, n_held = {}, 0, nil, 0
  for i = 1, #changes, 2 do
    local uid = changes[i]
    if kind_for(base[uid], changes[i + 1]) ~= nil then
      flat[n + 1], n = uid, n + 2
    else
      held = held or {}
      held[n_held + 1], n_held = uid, n_held + 1
    end
  end
  local pkey = pending_key(id, line)
  if held then
    local waiting = hmget_map(pkey, held)
    for j = 1, n_held do
      if waiting[held[j]] then flat[n + 1], n = held[j], n + 2 end
    end
  end
  if n == 0 then return end
  for j = 2, n, 2 do flat[j] = seq end
  hset_flat(pkey, flat)
end

-- The directory messages about one account between carriers (outbox kinds,
-- store/outbox.hpp): `ask` (this carrier just created the account: does the
-- peer hold one?), `hold` (the answer: it does) and `retire` (this carrier no
-- longer holds it).
local function tell(peer, id, kind)
  redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', kind)
end

-- A batch for a peer is written as entries of about this many bytes of
-- sealed records (at least one item each): the peer applies each in a short
-- script of its own, so no Redis is held by one book's apply for long. The
-- link's requests (window_limits::request_bytes, actors/window_plan.hpp) are
-- sized so that one holds about one such entry.
local ENTRY_BYTES = 524288

-- At most this many uid, record pairs in one entry: they are arguments of
-- one XADD, which Lua's C stack bounds (8,000).
local ENTRY_PAIRS = 1000

-- The uids of items[from..last] (uid, record pairs) as an outbox entry's
-- fields, and '' after an odd count: a stream entry is field, value pairs.
-- One card, an edit's usual lot, needs no table (a table for it cost a
-- one-card upload 1%, bench/redis_instructions).
local function uid_fields(items, from, last)
  if last == from + 1 then return items[from], '' end
  local uids, n = {}, 0
  for j = from, last, 2 do
    n = n + 1
    uids[n] = items[j]
  end
  if n % 2 == 1 then uids[n + 1] = '' end
  return unpack(uids)
end

-- Appends `items` (uid, record, ...) to each peer's outbox as batch entries
-- of about ENTRY_BYTES of records: id, kind 'batch', then 'uids' and their
-- count and the uids, each a field of its own (and '' after an odd count;
-- store/outbox.hpp, outbox_batch). The records stay in the shared store,
-- where the link reads them as it sends (store::read_outbox): a copy here was
-- most of what a book's upload wrote to the append-only file besides the
-- store itself, once per sibling carrier. The link sends what the store holds
-- by then, never older than what the entry named (a later change only wins).
-- `inline` writes the records in the entry instead ('cards' and their count,
-- then uid, record pairs): for an account about to be removed, whose store
-- the link could no longer read (send_book_before_removal).
local function send_batches(id, peers, items, inline)
  local from, bytes = 1, 0
  for i = 1, #items, 2 do
    bytes = bytes + #items[i] + #items[i + 1]
    local pairs_so_far = (i + 1 - from + 1) / 2
    if bytes >= ENTRY_BYTES or pairs_so_far >= ENTRY_PAIRS or i + 1 >= #items then
      local count = string.format('%d', pairs_so_far)
      for _, peer in ipairs(peers) do
        if inline then
          redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'batch', 'cards', count,
                     unpack(items, from, i + 1))
        else
          redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'batch', 'uids', count,
                     uid_fields(items, from, i + 1))
        end
      end
      from, bytes = i + 2, 0
    end
  end
end

-- The whole shared store (tombstones too) for a new sibling.
local function bootstrap(id, peer)
  send_batches(id, {peer}, redis.call('HGETALL', shared_key(id)))
end

-- Before an account is removed: a peer whose outbox still holds entries
-- may be owed some of them, which name records the removal deletes, so the
-- whole book goes to it with its records in the entry (the peer's apply
-- takes what it already holds as identical). A peer the link has caught up
-- with (an empty outbox) is owed nothing. The book is read once for all,
-- each origin written out: the account's table of origins goes with it (a
-- number it does not name stays, and the peer refuses that record alone:
-- a line is removed whatever its store holds).
local function send_book_before_removal(id, peers)
  local owed = {}
  for _, peer in ipairs(peers) do
    if redis.call('XLEN', outbox_key(peer)) > 0 then owed[#owed + 1] = peer end
  end
  if #owed == 0 then return end
  use_origins(id)
  local book = redis.call('HGETALL', shared_key(id))
  for i = 2, #book, 2 do book[i] = rec_as_read(book[i]) end
  send_batches(id, owed, book, true)
end

local function send_to_siblings(id, changes)
  if #changes == 0 then return end
  local peers = redis.call('SMEMBERS', siblings_key(id))
  if #peers == 0 then return end
  send_batches(id, peers, changes)
end

-- A pending entry's sequence number (offer_seq), or an older entry's plain
-- number. Entries written before the mailbox held references are
-- "seq:record"; their record is the shared one as well (the same writers kept
-- both), so only the number before the ':' is used.
local function pending_seq(value)
  return string.match(value, '^v?%d+')
end

-- -- a line's mailbox ----------------------------------------------------------
--
-- What a line has not taken or refused yet is read, not stored per card: the
-- account's history names every change its shared store took, so the
-- mailbox is the uids the history names after the line's mark (the history
-- id through which the line has fetched and acknowledged), with the few a
-- script offered the line explicitly in its `pending` hash (uid -> seq: an
-- upload's conflicts, the pages of a fetch the phone never asked for, and
-- what releases before this one offered), each kept only while the line does not hold its shared
-- version already (kind_for). A line's own upload moves its base, so its own
-- changes are never offered back to it. A line without a mark starts at its
-- account's `mailbox_from`, the history's end when this release first wrote
-- to the account (before, every offer was explicit), or, for an account it
-- has not written to yet, at the history's end. Where the history cannot
-- say (the stream dropped entries after the mark: trimmed to the policy's
-- age or count) the mailbox is the whole book that the line does not hold:
-- that can offer again a change the line refused, never leave one out.
-- A read that went through many history entries (a phone that keeps asking
-- and never acknowledges) or through the whole book folds what it found
-- into explicit offers and moves the mark past it (read_pending), so that
-- the next read starts there: each read costs what changed since the last,
-- not all that the line has let wait.

-- Whether stream id `a` ("<ms>-<seq>") comes after `b`.
local function id_after(a, b)
  local a_ms, a_seq = string.match(a, '^(%d+)-(%d+)$')
  local b_ms, b_seq = string.match(b, '^(%d+)-(%d+)$')
  a_ms, b_ms = tonumber(a_ms), tonumber(b_ms)
  if a_ms ~= b_ms then return a_ms > b_ms end
  return tonumber(a_seq) > tonumber(b_seq)
end

-- Appends `uid` to the list `uids` unless `seen` (uid -> true) has it.
local function add_once(uids, seen, uid)
  if not seen[uid] then
    seen[uid] = true
    uids[#uids + 1] = uid
  end
end

-- The entries of the account's history after `mark`, and the history's last
-- id; nil for the entries when the history cannot say what came after `mark`
-- (entries after it were dropped).
local function history_after(id, mark)
  local hkey = history_key(id)
  -- A stream stays when trimmed empty: none means never written.
  if redis.call('EXISTS', hkey) == 0 then return {}, mark end
  local info = flat_to_map(redis.call('XINFO', 'STREAM', hkey))
  local last = info['last-generated-id']
  if info['entries-added'] > info.length then
    local first = info['first-entry'] and info['first-entry'][1] or last
    if id_after(first, mark) then return nil, last end
  end
  return redis.call('XRANGE', hkey, '(' .. mark, '+'), last
end

-- How many history entries a read goes through before it folds them
-- (read_pending): about 0.15 ms of Redis's time, against 23 ms for 9,000
-- and more for the 10,000 a history keeps at most (bench/store_edit_bench
-- BM_update_after_edits, before the fold); a fold is one HSET of the uids it
-- found.
local FOLD_AFTER_ENTRIES = 100

-- A history entry's field `name` (its fields as XRANGE gives them), or nil.
local function entry_field(fields, name)
  for i = 1, #fields, 2 do
    if fields[i] == name then return fields[i + 1] end
  end
  return nil
end

-- Whether history `entries` are read without a fold (read_pending) and are
-- additions and lost edits alone (which name nothing). Their uids are then
-- distinct: adding a uid again needs its removal between, which the history
-- names. Each is 'added' to a line that holds nothing (read_pending).
local function additions_alone(entries)
  if #entries >= FOLD_AFTER_ENTRIES then return false end
  for _, entry in ipairs(entries) do
    local kind = entry_field(entry[2], HIST_KIND)
    if kind ~= 'added' and kind ~= 'lost' then return false end
  end
  return true
end

-- The uids the account's history names after `mark`, in order, first
-- mention each, into `uids` (a list) and `seen` (uid -> true, or 'added'
-- for a uid named there only by additions: a live version that nothing the
-- history names has changed since, since every other write to the shared
-- store is named, and one of the same content keeps its kind and hash);
-- `lost` entries (an edit that never was the book's) name nothing. Returns the
-- history's last id, false when the history cannot say what came after
-- `mark` (history_after), and how many entries it read.
local function history_uids_after(id, mark, uids, seen)
  local entries, last = history_after(id, mark)
  if not entries then return last, false, 0 end
  for _, entry in ipairs(entries) do
    local fields = entry[2]
    local kind, uid, listed
    for i = 1, #fields, 2 do
      local f = fields[i]
      if f == HIST_KIND then kind = fields[i + 1]
      elseif f == HIST_UID then uid = fields[i + 1]
      elseif f == HIST_UIDS then listed = fields[i + 1] end
    end
    if kind ~= 'lost' then
      if uid then
        if not seen[uid] then uids[#uids + 1] = uid end
        seen[uid] = true
      end
      if listed then
        for _, u in ipairs(split_netstrings(listed) or {}) do
          if not seen[u] then
            seen[u] = 'added'
            uids[#uids + 1] = u
          end
        end
      end
    end
  end
  return last, true, #entries
end

-- The history id through which the line has taken or refused what its
-- mailbox held (its mark; for a line without one, its account's
-- mailbox_from, else the history's end).
local function mailbox_mark(id, line)
  return redis.call('HGET', line_key(id, line), 'mark') or
           redis.call('HGET', account_key(id), 'mailbox_from') or history_end(id)
end

-- A line's mailbox as a list: `uids` (explicit offers first, then those the
-- history names after the line's mark, or the whole book when the history
-- no longer reaches back to it), the history id it `reaches`, how many are
-- `explicit`, whether the history was `complete` from the mark, how many of
-- its `entries` were read, and history_uids_after's `seen`. A uid may be
-- stale (held already, or gone from shared): read_pending tells. (A new
-- line's book is listed by its entries instead: pending_entries.)
local function list_pending(id, line)
  local flat = redis.call('HGETALL', pending_key(id, line))
  local uids, seen = {}, {}
  for i = 1, #flat, 2 do add_once(uids, seen, flat[i]) end
  local explicit = #uids
  local reaches, complete, entries =
    history_uids_after(id, mailbox_mark(id, line), uids, seen)
  if not complete then
    -- The whole book: HKEYS (read_pending reads their records).
    for _, uid in ipairs(redis.call('HKEYS', shared_key(id))) do add_once(uids, seen, uid) end
  end
  return {uids = uids, reaches = reaches, explicit = explicit, complete = complete,
          entries = entries, seen = seen}
end

-- A line's mailbox as history entries rather than uids (list_pending), where
-- it is a new line's book: no explicit offer, the history complete from the
-- mark, its entries additions and lost edits only, short of a fold
-- (additions_alone: their uids are distinct), each with its count. A
-- fetch then lists the uids of only the entries its pages and ack steps
-- reach (fetch_list_upto): listing a 50,000-card book's every uid was most
-- of its first page (bench/store_edit_bench
-- BM_first_page_of_a_book_not_taken). Returns {entries = the additions'
-- {id, fields}, in order; total = their uids; reaches = the history id
-- read to}, or nil for any other mailbox.
local function pending_entries(id, line)
  if redis.call('HLEN', pending_key(id, line)) > 0 then return nil end
  local entries, last = history_after(id, mailbox_mark(id, line))
  if not entries or not additions_alone(entries) then return nil end
  local listed, total = {}, 0
  for _, entry in ipairs(entries) do
    if entry_field(entry[2], HIST_UIDS) then
      local n = entry_field(entry[2], HIST_COUNT)
      if not n then return nil end -- written before the count
      listed[#listed + 1] = entry
      total = total + n
    end
  end
  return {entries = listed, total = total, reaches = last}
end

-- The uids history entry `fields` adds (HIST_UIDS), appended to the list `out`.
local function add_entry_uids(fields, out)
  for _, uid in ipairs(split_netstrings(entry_field(fields, HIST_UIDS)) or {}) do
    out[#out + 1] = uid
  end
end

-- How many uids the line's open paged fetch lists: those in its fetchlist
-- and those its fetchrest's entries still hold.
local function fetch_list_size(id, line)
  return redis.call('LLEN', fetchlist_key(id, line)) +
           tonumber(redis.call('HGET', line_key(id, line), 'fetch_rest') or '0')
end

-- Makes the open fetch's fetchlist hold its first `n` uids (or all it has),
-- taking the uids of fetchrest's entries in order. False when the next
-- entry is gone from the history (trimmed since the fetch began): the fetch
-- cannot go on, and every later page or step of it says so too, since the
-- entry stays first in fetchrest.
local function fetch_list_upto(id, line, n)
  local okey, rkey = fetchlist_key(id, line), fetchrest_key(id, line)
  local have = redis.call('LLEN', okey)
  while have < n do
    local entry_id = redis.call('LINDEX', rkey, 0)
    if not entry_id then return true end
    local found = redis.call('XRANGE', history_key(id), entry_id, entry_id)
    if #found == 0 then return false end
    local uids = {}
    add_entry_uids(found[1][2], uids)
    call_in_chunks('RPUSH', okey, uids)
    redis.call('LPOP', rkey)
    redis.call('HINCRBY', line_key(id, line), 'fetch_rest', -entry_field(found[1][2], HIST_COUNT))
    have = have + #uids
  end
  return true
end

-- Whether a read of `listed` (list_pending) folds it (read_pending).
local function folds(listed)
  return not listed.complete or listed.entries >= FOLD_AFTER_ENTRIES
end

-- A line's mailbox: list_pending's uids, uid -> kind for those the line does
-- not hold yet (kind_for: a uid without one is stale, held already or gone
-- from shared), and the history id it reaches. A uid the history names only
-- as an addition is 'added' to a line whose base has no version of it, and
-- its record is not read (a phone's first book: 50,000 records of about 200
-- bytes each, most of a count's time); the others' records are.
-- A read that went through FOLD_AFTER_ENTRIES entries or more, or
-- through the whole book, is folded: the uids it found in the history that
-- mean something to the line become explicit offers (numbered by the
-- account's version, as an ack's are; an offer already there is kept) and
-- the mark moves to where it reached, so the mailbox is the same and the
-- next read starts there. A fetch still open is unharmed: its ack moves the
-- mark back to its snapshot's, so what the history named after that is read
-- again, and it removes only the offers whose numbers it delivered.
-- `listed`: list_pending's, when the caller has it already.
local function read_pending(id, line, listed)
  listed = listed or list_pending(id, line)
  local uids, seen = listed.uids, listed.seen
  local base = hmget_map(base_key(id, line), uids)
  local reading, n = {}, 0
  for _, uid in ipairs(uids) do
    if seen[uid] ~= 'added' or base[uid] then
      n = n + 1
      reading[n] = uid
    end
  end
  local records = hmget_map(shared_key(id), reading)
  local kinds = {}
  for _, uid in ipairs(uids) do
    local rec = records[uid]
    if rec then
      kinds[uid] = kind_for(base[uid], rec)
    elseif seen[uid] == 'added' and not base[uid] then
      kinds[uid] = 'added'
    end
  end
  if folds(listed) then
    local seq = settled_seq(id)
    local folded = {}
    for i = listed.explicit + 1, #uids do
      local uid = uids[i]
      if kinds[uid] then
        folded[#folded + 1] = uid
        folded[#folded + 1] = seq
      end
    end
    hset_flat(pending_key(id, line), folded)
    redis.call('HSET', line_key(id, line), 'mark', listed.reaches)
  end
  return uids, kinds, listed.reaches
end

-- An update request's counts without listing the mailbox's uids, when the
-- mailbox is a new line's book (pending_entries) and the line holds nothing
-- yet (no base): the count is the entries' counts summed (a phone's first
-- book: splitting and looking up 50,000 uids was most of a count's time,
-- bench/store_edit_bench BM_update_of_a_book_not_taken). nil when the
-- mailbox is anything else, or an entry predates the count.
local function counts_of_additions(id, line)
  if redis.call('EXISTS', base_key(id, line)) > 0 then return nil end
  local book = pending_entries(id, line)
  return book and {added = book.total, changed = 0, removed = 0}
end

-- Changes whenever the line's mailbox does: every change the shared store
-- takes (which its history names), every explicit offer and every upload
-- of the line that moves its base move the account's version on
-- (close_account, offer_seq); a fold changes the explicit offers' count
-- (read_pending); a fetch moves the line's cursor on and opens it, an ack
-- closes it ('-'), and each step of an ack taken in steps moves its progress
-- (ack_state). So the same tag means the same mailbox: a fetch answers
-- 304 and an update request its counts as they were. (The account's other
-- changes move the version too: they only cost a recount.)
local function mailbox_tag(id, line)
  local version = redis.call('HGET', account_key(id), 'version')
  local cursor, open, acking =
    unpack(redis.call('HMGET', line_key(id, line), 'cursor', 'fetched', 'ack_state'))
  return (version or '0') .. '.' .. redis.call('HLEN', pending_key(id, line)) .. '.' ..
    (cursor or '0') .. (open and '' or '-') .. (acking and ('.' .. acking) or '')
end

-- The counts an update request kept for the line's mailbox ({added,
-- changed, removed}), while the mailbox is as it counted it (its tag); nil
-- otherwise: the same tag means the same mailbox.
local function kept_counts(id, line)
  local counted_at, counted =
    unpack(redis.call('HMGET', line_key(id, line), 'counted_tag', 'counted'))
  if not counted_at or counted_at ~= mailbox_tag(id, line) then return nil end
  local added, changed, removed = string.match(counted, '^(%d+)%.(%d+)%.(%d+)$')
  return {added = tonumber(added), changed = tonumber(changed), removed = tonumber(removed)}
end

-- A fetched entry: what an ack removes and applies, and the line's base for
-- the uid when it was fetched, so an ack never moves a base that a later
-- upload of the line has moved. "seq:" then the change ('D' for a removal,
-- else 'H' and the version's hash) and the base ('-' for none, else 'H' and
-- its hash): a hash is bytes, which may hold any separator, so each is
-- marked and read by its length.
local FETCHED_HASH, FETCHED_REMOVAL, FETCHED_NONE = 72, 68, 45 -- 'H', 'D', '-'
local function fetched_entry(seq, rec, base)
  return seq .. ':' .. (rec_deleted(rec) and 'D' or 'H' .. rec_hash(rec)) ..
           (base and 'H' .. held_hash(base) or '-')
end
-- The marked part of a fetched entry at `at`: its value ('D', '-' or a
-- hash) and where the next part starts.
local function fetched_part(value, at)
  if string.byte(value, at) == FETCHED_HASH then
    return string.sub(value, at + 1, at + REC_HASH_BYTES), at + 1 + REC_HASH_BYTES
  end
  return string.sub(value, at, at), at + 1
end
-- seq, the change and the base of a fetched entry. One written before hashes
-- were bytes is "seq:hash:base" in hex, or "seq:D:base"; one written before
-- the base was kept, "seq:what", gives base nil.
local function split_fetched(value)
  local colon = string.find(value, ':', 1, true)
  local seq = string.sub(value, 1, colon - 1)
  local first, second = string.byte(value, colon + 1, colon + 2)
  if first == FETCHED_HASH or
      (first == FETCHED_REMOVAL and (second == FETCHED_NONE or second == FETCHED_HASH)) then
    local what, at = fetched_part(value, colon + 1)
    return seq, what, (fetched_part(value, at))
  end
  local what, sep, base = string.match(value, '^[^:]*:([^:]*)(:?)(.*)$')
  if what ~= 'D' then what = hash_bytes(what) end
  if sep == '' then return seq, what, nil end
  return seq, what, base == '-' and base or hash_bytes(base)
end

-- -- incoming outbox entries of a sibling carrier ------------------------------

-- F4 receive: compare, then copy. A change from a sibling carrier is taken
-- only if its stamp is newer; if its content differs, history notes it,
-- which is where the account's lines read their mailboxes. The batch is the uid,
-- record pairs args[from..last] (a call's ARGV: read where they are, not
-- copied), each record's form checked by the caller, `newest` their newest
-- stamp, which alone the account's clock observes, and `live_origin` the
-- origin text all of them share when all are live versions from one line
-- (nil otherwise), which history then notes without reading it from each
-- (apply_incoming.lua); args[claims_from..from - 1] claim the numbers the
-- records write their origins as (number, text, ...: claim_origin).
-- Idempotent: a change already taken has the same stamp and counts as
-- identical. Returns applied, identical, stale, not_sibling.
local function replicate_in(id, args, claims_from, from, last, newest, live_origin, peer)
  local cards = (last - from + 1) / 2
  -- No account here (any more): nothing to apply; a later registration is
  -- bootstrapped with the whole store.
  local account = open_account(id)
  if not account then return 0, 0, cards, 0 end
  -- Only a sibling of the account writes to it. A peer becomes one through
  -- the ask or hold it sends before any of its batches for the account
  -- (answer_ask, take_hold): a batch from any other peer is refused whole,
  -- whatever its signature, so that a carrier cannot write to the account of
  -- a person it holds no line of.
  if redis.call('SISMEMBER', siblings_key(id), peer) == 0 then
    return 0, 0, 0, cards
  end
  local taken = nil
  for i = claims_from, from - 1, 2 do
    if not claim_origin(id, args[i], args[i + 1]) then
      taken = taken or {}
      taken[args[i]] = args[i + 1]
    end
  end
  if taken then
    for i = from + 1, last, 2 do
      local number = rec_origin_number(args[i])
      if number and taken[number] then args[i] = origin_written_out(args[i], taken[number]) end
    end
  end

  local skey, hkey = shared_key(id), history_key(id)
  -- What the store holds, read at once and kept up to date here as the batch
  -- is applied (a batch may carry two versions of a card), and written at once.
  -- A store that is not there yet (a new book's first batch) is not read.
  -- (Lists counted as they grow, not # per append: see line_changes.)
  local held = {}
  if may_hold(skey, cards) then
    local uids = {}
    for i = from, last, 2 do uids[(i - from) / 2 + 1] = args[i] end
    held = hmget_map(skey, uids, true)
  end
  -- What is written: args[from..] as they came while every item so far is
  -- (a new book makes no list), as a list from the first that is not.
  local writes, n_writes = nil, 0
  local applied, identical, stale = 0, 0, 0
  -- A batch of one line's live versions (live_origin) notes its additions in
  -- place (additions_for), a call per card being most of its history's work.
  local added, n_added = nil, 0
  observe_clock(account, newest)
  for i = from, last, 2 do
    local uid, rec = args[i], args[i + 1]
    local cur = held[uid]
    if not cur or newer(rec, cur) then
      -- Even a same-content change moves the stamp, so every replica holds the
      -- same stamp and later changes are ordered the same everywhere.
      held[uid] = rec
      if writes then
        writes[n_writes + 1], writes[n_writes + 2], n_writes = uid, rec, n_writes + 2
      end
      if cur and same_content(rec, cur) then
        identical = identical + 1
      else
        if live_origin and not (cur and not rec_deleted(cur)) then
          if not added then
            added = additions_for(hkey, live_origin)
            n_added = added.n
          end
          n_added = n_added + 1
          added[n_added] = uid
        else
          if added then added.n, added = n_added, nil end
          note_write(hkey, uid, cur, rec, live_origin)
        end
        applied = applied + 1
      end
    else
      if not writes then
        writes, n_writes = {}, i - from
        for j = from, i - 1 do writes[j - from + 1] = args[j] end
      end
      if same_content(rec, cur) then
        identical = identical + 1
      else
        if added then added.n, added = n_added, nil end
        note_change(hkey, uid, 'lost', rec_origin_text(rec), rec)
        stale = stale + 1
      end
    end
  end
  if added then added.n = n_added end

  if writes then hset_flat(skey, writes) else hset_flat(skey, args, from, last) end
  if applied > 0 or stale > 0 then trim_history(hkey, account) end
  close_account(account, applied > 0)
  return applied, identical, stale, 0
end

-- F1 sibling resolution (the user_directory's part in the store). A carrier
-- records a peer as a sibling of an account only while it holds the account
-- itself, so a carrier where the person has no line keeps nothing that names
-- them. Each returns (asked, answered, sibling_added, sibling_removed).

-- `peer` created an account for this idcode and asks whether this carrier
-- holds one. If it does, it records the peer, says so and sends it the whole
-- shared store: the peer's account is new, so it has none of it, even if the
-- peer was recorded before (a crossing ask). Else nothing is recorded and
-- nothing answered.
local function answer_ask(id, peer)
  if redis.call('EXISTS', account_key(id)) == 0 then return 1, 0, 0, 0 end
  local added = redis.call('SADD', siblings_key(id), peer)
  tell(peer, id, 'hold')
  bootstrap(id, peer)
  return 1, 1, added, 0
end

-- `peer` holds an account for this idcode (its answer to this carrier's ask,
-- or its own ask crossed this carrier's). A sibling not known before gets the
-- whole shared store: what this account took before the peer was known never
-- went there. Without the account (the line was retired since it asked) the
-- peer is told, so it stops sending here.
local function take_hold(id, peer)
  if redis.call('EXISTS', account_key(id)) == 0 then
    tell(peer, id, 'retire')
    return 0, 0, 0, 0
  end
  if redis.call('SADD', siblings_key(id), peer) == 0 then return 0, 0, 0, 0 end
  bootstrap(id, peer)
  return 0, 0, 1, 0
end

-- `peer` no longer holds an account for this idcode: stop sending it changes
-- (idempotent: nothing when it was not a sibling).
local function take_retire(id, peer)
  return 0, 0, 0, redis.call('SREM', siblings_key(id), peer)
end

-- What each directory kind of an incoming outbox entry does ('announce',
-- written before asks existed, is an ask): made once, not per call.
local DIRECTORY_ACTIONS = {ask = answer_ask, announce = answer_ask, hold = take_hold,
                           retire = take_retire}

-- -- a line's changes to the shared store (upload, restore) -------------------

-- One script's changes to an account's shared store on behalf of one of its
-- lines. Each write is noted in history at once; the shared store, the line's
-- base and mailbox, the other lines and the siblings are brought up to date
-- together by finish_line_changes (a few commands for a whole book, not one
-- for each card). `touched`: uids whose pending entry for this line the
-- change supersedes. `account` is the open account (open_account). The
-- lists' lengths are counted as they grow (n_*): a # per append, several per
-- card, was 4% of a book's upload (bench/redis_instructions).
local function line_changes(account, line, hlc, carrier)
  local id = account.id
  -- The head and tail of the line's live records (make_record), made once.
  return {id = id, account = account, line = line, hlc = hlc, carrier = carrier,
          origin = origin_text(carrier, line), live_head = REC_LIVE .. hlc_bytes(hlc),
          origin_tail = origin_tail(carrier, line),
          skey = shared_key(id), hkey = history_key(id), changes = {}, n_changes = 0,
          base_sets = {}, n_base_sets = 0, base_dels = {}, touched = {}, n_touched = 0}
end

local function line_touches(lc, uid)
  local n = lc.n_touched + 1
  lc.touched[n], lc.n_touched = uid, n
end

local function line_changed(lc, uid, rec)
  local n = lc.n_changes
  lc.changes[n + 1], lc.changes[n + 2], lc.n_changes = uid, rec, n + 2
  line_touches(lc, uid)
end

local function line_bases(lc, uid, hash)
  local n = lc.n_base_sets
  lc.base_sets[n + 1], lc.base_sets[n + 2], lc.n_base_sets = uid, hash, n + 2
end

-- The line holds `hash` for uid, which the shared store already agrees with.
local function line_holds(lc, uid, hash)
  line_bases(lc, uid, hash)
  line_touches(lc, uid)
end

-- The line no longer holds uid, which the shared store holds no live version of.
local function line_drops(lc, uid)
  lc.base_dels[#lc.base_dels + 1] = uid
  line_touches(lc, uid)
end

-- The line's versions of cards replace what the shared store holds of them
-- (`shared`: uid -> nil, a tombstone or a live version); the line holds them
-- now. Each is items[i], items[i + 1], items[i + 2] (uid, hash, the line's
-- record of it stamped at lc.hlc) for an i of at[1..n]. One loop with lc's
-- lists in locals: line_put's calls and field reads per card were a sixth
-- of a book's upload.
local function line_puts(lc, items, at, n, shared)
  local hkey, origin = lc.hkey, lc.origin
  local changes, touched, bases = lc.changes, lc.touched, lc.base_sets
  local nc, nt, nb = lc.n_changes, lc.n_touched, lc.n_base_sets
  local added, n_added = nil, 0 -- additions_for(hkey, origin), once one is added
  for k = 1, n do
    local i = at[k]
    local uid, hash = items[i], items[i + 1]
    local cur = shared[uid]
    if cur and not rec_deleted(cur) then
      if added then added.n, added = n_added, nil end
      note_change(hkey, uid, 'changed', origin, cur)
    else
      if not added then
        added = additions_for(hkey, origin)
        n_added = added.n
      end
      n_added = n_added + 1
      added[n_added] = uid
    end
    nc, nt, nb = nc + 2, nt + 1, nb + 2
    changes[nc - 1], changes[nc] = uid, items[i + 2]
    touched[nt] = uid
    bases[nb - 1], bases[nb] = uid, hash
  end
  if added then added.n = n_added end
  lc.n_changes, lc.n_touched, lc.n_base_sets = nc, nt, nb
end

-- One card's line_puts: the line's version of the card and hash that
-- record `from` holds replaces `cur`.
local function line_put(lc, uid, cur, from)
  local hash = rec_hash(from)
  line_puts(lc, {uid, hash, lc.live_head .. hash .. lc.origin_tail .. rec_card(from)}, {1}, 1,
            {[uid] = cur})
end

-- The line removes `cur`, a live version it has seen.
local function line_remove(lc, uid, cur)
  local rec = make_tombstone(lc.hlc, lc.carrier, lc.line, cur)
  note_write(lc.hkey, uid, cur, rec, lc.origin)
  line_changed(lc, uid, rec)
  lc.base_dels[#lc.base_dels + 1] = uid
end

local function finish_line_changes(lc)
  local id, line = lc.id, lc.line
  hset_flat(lc.skey, lc.changes)
  hset_flat(base_key(id, line), lc.base_sets)
  hdel_list(base_key(id, line), lc.base_dels)
  hdel_list(pending_key(id, line), lc.touched)
  send_to_siblings(id, lc.changes)
  if lc.n_changes > 0 then trim_history(lc.hkey, lc.account) end
end
