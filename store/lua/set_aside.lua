-- An outbox entry whose cards do not open at the link (altered where it was
-- stored) would fail every window the link sends, and so stop this carrier's
-- replication to the peer for every account. The link sets it aside instead:
-- the entry moves, as it was, to the peer's set-aside stream for an operator
-- (with why and when), and the shared store's current version of each of its
-- uids is written to the outbox again, so the peer still converges. A uid
-- whose record the shared store holds altered too (the very bytes the entry
-- held, as the link read them: its origin written out) is not sent again: it
-- cannot open anywhere, and sending it would set aside the new entry in
-- turn.
-- ARGV: peer, entry id, why, now (Unix ms), idcode, how many entries the
-- set-aside stream keeps (about: store/operator_streams.hpp), then for each
-- item of the entry: uid, record as the entry held it, '1' if it does not
-- open else '0'.
-- Returns set_aside_reply (store/contract/replies.list).
local peer, entry_id, why, now_ms, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local kept = ARGV[6]
local FIRST = 7
local okey = outbox_key(peer)
local found = redis.call('XRANGE', okey, entry_id, entry_id)
if #found == 0 then return set_aside_reply{found = 0, resent = 0, broken = 0} end
redis.call('XADD', set_aside_key(peer), 'MAXLEN', '~', kept, '*', 'why', why, 'at', now_ms,
           unpack(found[1][2]))
redis.call('XDEL', okey, entry_id)

local items, broken = {}, 0
if redis.call('SISMEMBER', siblings_key(id), peer) == 1 then
  local uids = {}
  for i = FIRST, #ARGV, 3 do uids[#uids + 1] = ARGV[i] end
  local now = hmget_map(shared_key(id), uids)
  use_origins(id)
  for i = FIRST, #ARGV, 3 do
    local uid, held, altered = ARGV[i], ARGV[i + 1], ARGV[i + 2] == '1'
    local cur = now[uid]
    if cur and altered and rec_as_read(cur) == held then
      broken = broken + 1
    elseif cur then
      items[#items + 1] = uid
      items[#items + 1] = cur
    end
  end
  send_batches(id, {peer}, items)
end
return set_aside_reply{found = 1, resent = #items / 2, broken = broken}
