-- A peer carrier no longer holds an account for this idcode: stop sending
-- it changes. ARGV: idcode, peer. Returns {sibling_removed}.
local id, peer = ARGV[1], ARGV[2]
return {redis.call('SREM', dir_key(id), peer)}
