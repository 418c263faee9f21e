-- F6 fetch, one page per call. A fetch starts with a snapshot of the line's
-- mailbox (its uids, in page order, and the counts of the whole fetch) and a
-- new cursor; each page then delivers the current change of its uids and
-- records what it delivered, so the ack removes exactly what the phone saw on
-- every page and nothing that came later.
-- ARGV: idcode, line, token hash (access_refused), limit (0: everything left), next ('' starts a new fetch,
--       else "<cursor>.<offset>" from the previous page), known ('' or the
--       mailbox tag the phone holds, from If-None-Match).
-- Returns {state, cursor, next, tag, added, changed, removed, origins,
--          uid, kind, record, uid, kind, record, ...}: state 'page', or
-- 'not_modified' (nothing else but cursor and tag) when `known` is current;
-- origins is the account's table of origins (number, text, ...) when a
-- record delivered writes its origin as its number, else empty.
local id, line, token_hash = ARGV[1], ARGV[2], ARGV[3]
local limit, next, known = tonumber(ARGV[4]), ARGV[5], ARGV[6]
local refusal = access_refused(id, line, token_hash)
if refusal then return refusal end
if not limit or limit < 0 then return fail('bad_request') end

local pkey, fkey, lkey, okey, rkey = pending_key(id, line), fetched_key(id, line),
  line_key(id, line), fetchlist_key(id, line), fetchrest_key(id, line)

-- Delivers `uids`: the change each has now, recorded in the fetched hash
-- with its explicit offer's sequence number ('-' for one the history names)
-- and the line's base at this moment. A uid the line holds by now (its own
-- upload took it) is skipped, and its explicit offer dropped. With a record
-- whose origin is its number, the table of origins goes with them.
local function deliver(uids, out)
  if #uids == 0 then return end
  local numbered = false
  local seqs, records = hmget_map(pkey, uids), hmget_map(shared_key(id), uids)
  local bases = hmget_map(base_key(id, line), uids)
  local fetched, stale = {}, {}
  for _, uid in ipairs(uids) do
    local seq, rec = seqs[uid], records[uid]
    local kind = rec and kind_for(bases[uid], rec)
    if kind then
      out[#out + 1] = uid
      out[#out + 1] = kind
      out[#out + 1] = rec
      numbered = numbered or rec_origin_number(rec) ~= nil
      fetched[#fetched + 1] = uid
      fetched[#fetched + 1] = fetched_entry(seq and pending_seq(seq) or '-', rec, bases[uid])
    elseif seq then
      stale[#stale + 1] = uid
    end
  end
  hdel_list(pkey, stale)
  hset_flat(fkey, fetched)
  if numbered then out[8] = redis.call('HGETALL', origins_key(id)) end
end

-- The answer's head; deliver() appends the changes (no unpack of them:
-- Lua's C stack holds only a few thousand values).
local out = {'page', '', '', '', 0, 0, 0, {}}
if next == '' then
  if known ~= '' and known == mailbox_tag(id, line) then
    return {'not_modified', redis.call('HGET', lkey, 'fetched') or '', '', known, 0, 0, 0, {}}
  end
  -- The snapshot: every uid the line does not hold yet, counted. A phone
  -- asks for its counts first (an update request), and while the mailbox is
  -- as they counted it, the snapshot takes them and lists its uids without
  -- reading every record again (a 50,000-card book: most of the first
  -- page's time); a uid the list holds that the line holds already is
  -- skipped when its page is delivered.
  -- A new line's book (additions alone, pending_entries) is listed as its
  -- history entries: only those the first page reaches give their uids now,
  -- the others wait in fetchrest for the pages and ack steps that reach them.
  local counts, listed, book = kept_counts(id, line), nil, nil
  if counts then
    book = pending_entries(id, line)
    if not book then
      listed = list_pending(id, line)
      if folds(listed) then counts = nil end -- read_pending folds, and counts anew
    end
  end
  -- unlisted: the ids of the book's entries the first page does not reach.
  local order, reaches, total, unlisted
  if book then
    order, reaches, total, unlisted = {}, book.reaches, book.total, {}
    for _, entry in ipairs(book.entries) do
      if limit == 0 or #order < limit then
        add_entry_uids(entry[2], order)
      else
        unlisted[#unlisted + 1] = entry[1]
      end
    end
  elseif counts then
    order, reaches = listed.uids, listed.reaches
  else
    local uids, kinds
    uids, kinds, reaches = read_pending(id, line, listed)
    local stale = {}
    order, counts = {}, {added = 0, changed = 0, removed = 0}
    for _, uid in ipairs(uids) do
      local kind = kinds[uid]
      if kind then
        order[#order + 1] = uid
        counts[kind] = counts[kind] + 1
      else
        stale[#stale + 1] = uid -- the line already holds it, or it is gone from shared
      end
    end
    hdel_list(pkey, stale)
  end
  total = total or #order
  redis.call('DEL', fkey, okey, rkey)
  redis.call('HDEL', lkey, 'fetch_rest')
  local cursor = redis.call('HINCRBY', lkey, 'cursor', 1)
  local first = order
  local rest = ''
  if limit > 0 and limit < total then
    first = {}
    for i = 1, limit do first[i] = order[i] end
    call_in_chunks('RPUSH', okey, order)
    if unlisted and #unlisted > 0 then
      call_in_chunks('RPUSH', rkey, unlisted)
      redis.call('HSET', lkey, 'fetch_rest', total - #order)
    end
    rest = cursor .. '.' .. limit
  end
  -- fetch_upto: how far the pages asked for in order reach into the list;
  -- the ack offers explicitly only what lies beyond (pages never asked for).
  redis.call('HSET', lkey, 'fetched', cursor, 'fetch_added', counts.added, 'fetch_changed',
             counts.changed, 'fetch_removed', counts.removed, 'fetch_mark', reaches,
             'fetch_upto', #first)
  deliver(first, out)
  out[2], out[3], out[4] = tostring(cursor), rest, mailbox_tag(id, line)
  out[5], out[6], out[7] = counts.added, counts.changed, counts.removed
  return out
end

-- A following page of the open fetch.
local cursor, offset = string.match(next, '^(%d+)%.(%d+)$')
if not cursor then return fail('bad_request') end
if redis.call('HGET', lkey, 'fetched') ~= cursor then return fail('stale_cursor') end
offset = tonumber(offset)
local total = fetch_list_size(id, line)
local last = limit > 0 and math.min(offset + limit, total) or total
if not fetch_list_upto(id, line, last) then return fail('stale_cursor') end
local uids = offset < last and redis.call('LRANGE', okey, offset, last - 1) or {}
deliver(uids, out)
local upto = tonumber(redis.call('HGET', lkey, 'fetch_upto') or '0')
if offset <= upto and last > upto then redis.call('HSET', lkey, 'fetch_upto', last) end
local counts = redis.call('HMGET', lkey, 'fetch_added', 'fetch_changed', 'fetch_removed')
out[2], out[3], out[4] = cursor, last < total and (cursor .. '.' .. last) or '', mailbox_tag(id, line)
for i = 1, 3 do out[4 + i] = tonumber(counts[i] or '0') end
return out
