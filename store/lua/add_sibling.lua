-- F1 announce: `peer` has an account for this idcode. A new sibling is
-- bootstrapped with the whole shared store (tombstones too) through its outbox.
-- ARGV: idcode, peer. Returns {sibling_added, records_sent}.
local id, peer = ARGV[1], ARGV[2]
if redis.call('SADD', dir_key(id), peer) == 0 then return {0, 0} end
local all = redis.call('HGETALL', shared_key(id))
if #all > 0 then
  redis.call('XADD', outbox_key(peer), '*', 'id', id, 'batch', batch_blob(all))
end
return {1, #all / 2}
