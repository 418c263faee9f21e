-- F1 announce received: `peer` has an account for this idcode. If this
-- carrier has one too, the new sibling is bootstrapped with the whole shared
-- store (tombstones too) and told about this account in return; the second
-- announcement finds the sibling known, so the exchange ends there.
-- ARGV: idcode, peer. Returns {sibling_added, records_sent}.
local id, peer = ARGV[1], ARGV[2]
if redis.call('SADD', dir_key(id), peer) == 0 then return {0, 0} end
if redis.call('EXISTS', acct_key(id)) == 0 then return {1, 0} end
announce(id, peer)
local all = redis.call('HGETALL', shared_key(id))
if #all > 0 then
  redis.call('XADD', outbox_key(peer), '*', 'id', id, 'kind', 'batch', 'batch',
             batch_blob(all))
end
return {1, #all / 2}
