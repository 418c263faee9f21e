-- Point-in-time restore of the shared store or of the line's private backup:
-- the change set that brings the book back to what it held at an instant,
-- rolled back from its history. With preview it is only counted; otherwise
-- it is written as an upload from the line would be (shared: offered to the
-- other lines and sent to the siblings).
-- ARGV: idcode, line, token hash (access_refused), scope (shared|private), at_ms,
--       preview (1|0), now_hlc, carrier, history keep_ms, history keep_count.
-- Returns {version, added, changed, removed}; fails 'beyond_history <ms>' when
-- the history no longer reaches back to the instant.
local id, line, token_hash, scope = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local at_ms, preview, now_hlc, carrier = tonumber(ARGV[5]), ARGV[6] == '1',
  tonumber(ARGV[7]), ARGV[8]
local keep_ms, keep_count = tonumber(ARGV[9]), ARGV[10]
local refusal = access_refused(id, line, token_hash)
if refusal then return refusal end

local private = scope == 'private'
local hkey = private and private_history_key(id, line) or history_key(id)
local meta = private and line_key(id, line) or account_key(id)
local from = history_reach(hkey, meta)
if at_ms < from then return fail('beyond_history', from) end

-- Per uid changed since the instant, the version it had then: the one the
-- first change after the instant replaced or removed (false: it had none).
local was, uids = {}, {}
local function first_change(uid, previous)
  if was[uid] == nil then
    was[uid] = previous
    uids[#uids + 1] = uid
  end
end
for _, entry in ipairs(redis.call('XRANGE', hkey, tostring(at_ms + 1), '+')) do
  local f = flat_to_map(entry[2])
  local kind = f[HIST_KIND]
  if kind == 'added' then
    for _, uid in ipairs(split_netstrings(f[HIST_UIDS] or '') or {}) do first_change(uid, false) end
  elseif kind ~= 'lost' then
    first_change(f[HIST_UID], f[HIST_PREVIOUS] or false)
  end
end

local key = private and private_backup_key(id, line) or shared_key(id)
local now = hmget_map(key, uids)
local function live(r) return r and not rec_deleted(r) end
local added, changed, removed = {}, {}, {}
for _, uid in ipairs(uids) do
  local target, cur = was[uid], now[uid]
  if live(target) then
    if not live(cur) then
      added[#added + 1] = uid
    elseif rec_hash(cur) ~= rec_hash(target) then
      changed[#changed + 1] = uid
    end
  elseif live(cur) then
    removed[#removed + 1] = uid
  end
end
local any = #added + #changed + #removed > 0
if preview or not any then
  return restore_reply{version = open_account(id).version, added = #added, changed = #changed,
                       removed = #removed}
end

local account = open_account(id)
local hlc = tick_clock(account, now_hlc)
keep_history(keep_ms, keep_count, math.floor(now_hlc / HLC_PER_MS))
if private then
  local writes, drops = {}, {}
  local function put(uid)
    local rec = make_record(hlc, rec_hash(was[uid]), false, carrier, line, rec_card(was[uid]))
    note_write(hkey, uid, now[uid], rec)
    writes[#writes + 1] = uid
    writes[#writes + 1] = rec
  end
  for _, uid in ipairs(added) do put(uid) end
  for _, uid in ipairs(changed) do put(uid) end
  for _, uid in ipairs(removed) do
    note_write(hkey, uid, now[uid], make_tombstone(hlc, carrier, line, now[uid]))
    drops[#drops + 1] = uid
  end
  hset_flat(key, writes)
  hdel_list(key, drops)
  trim_history(hkey)
else
  local lc = line_changes(account, line, hlc, carrier)
  local function put(uid) line_put(lc, uid, now[uid], was[uid]) end
  for _, uid in ipairs(added) do put(uid) end
  for _, uid in ipairs(changed) do put(uid) end
  for _, uid in ipairs(removed) do line_remove(lc, uid, now[uid]) end
  finish_line_changes(lc)
end
return restore_reply{version = close_account(account, true), added = #added, changed = #changed,
                     removed = #removed}
