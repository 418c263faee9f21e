-- Key rotation: a history stream rewritten with some fields sealed again.
-- Stream entries cannot be changed in place, so the stream is written anew
-- with the same ids (readers and restore points see the same entries) and
-- its last generated id and count of entries ever added kept (what
-- history_reach in lib.lua reads). Only if it is still the stream that was read:
-- same length and same last entry (scripts append and trim it atomically).
-- ARGV: key, last entry id, length, then entry id, field, new value triples.
-- Returns {replaced}, or {-1} when the stream changed since it was read.
local key, last, length = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('XLEN', key) ~= length then return {-1} end
local entries = redis.call('XRANGE', key, '-', '+')
if #entries == 0 or entries[#entries][1] ~= last then return {-1} end
local info = redis.call('XINFO', 'STREAM', key)
local fields = flat_to_map(info)
local new_values = {}
for i = 4, #ARGV, 3 do new_values[ARGV[i] .. '\0' .. ARGV[i + 1]] = ARGV[i + 2] end
redis.call('DEL', key)
local replaced = 0
for _, entry in ipairs(entries) do
  local fields = entry[2]
  for j = 1, #fields, 2 do
    local value = new_values[entry[1] .. '\0' .. fields[j]]
    if value then
      fields[j + 1] = value
      replaced = replaced + 1
    end
  end
  redis.call('XADD', key, entry[1], unpack(fields))
end
redis.call('XSETID', key, fields['last-generated-id'], 'ENTRIESADDED',
           fields['entries-added'], 'MAXDELETEDID', fields['max-deleted-entry-id'])
return {replaced}
