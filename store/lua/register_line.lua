-- F1 register: create the account or add the line to it, and (re)issue the
-- line's token. A new line of an existing account has the shared book pending.
-- A new account asks every peer carrier whether it holds one for the person
-- (the peers that do answer, lib.lua answer_ask), through the outboxes, in the
-- same transaction, so the question cannot be lost.
-- The line's msisdn is kept only sealed to the idcode, for its history.
-- ARGV: idcode, line id, iccid_hash, token_hash, sealed_user_info,
-- sealed_msisdn, now_ms, peers... Returns {account_created, line_added}.
local id, line, iccid_hash, token_hash, sealed, sealed_msisdn, now_ms =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]

local owner = redis.call('HGET', sim_key(line), 'id')
if owner and owner ~= id then return fail('line_taken') end

local created = redis.call('EXISTS', account_key(id)) == 0
if created then
  -- A new account has no history to trim: its first trim is due an hour on
  -- (trim_history), not at its first write, which is mostly its first edits'.
  redis.call('HSET', account_key(id), 'user_info', sealed, 'created_ms', now_ms, 'clock', '0',
             'version', '0', 'history_trimmed_ms', now_ms, 'mailbox_from', '0-0')
  for i = 8, #ARGV do tell(ARGV[i], id, 'ask') end
end
local line_added = redis.call('SADD', sims_key(id), line) == 1
redis.call('HSET', sim_key(line), 'id', id, 'iccid_hash', iccid_hash, 'token', token_hash)
-- A new line's mailbox is the whole book it does not hold yet: read from
-- the account's history from its start (mark 0-0), or, where the history no
-- longer reaches back, from the shared store itself (read_pending).
if line_added then
  redis.call('HSET', line_key(id, line), 'msisdn', sealed_msisdn, 'mark', '0-0')
else
  redis.call('HSET', line_key(id, line), 'msisdn', sealed_msisdn)
end
return register_line_reply{account_created = created and 1 or 0,
                           line_added = line_added and 1 or 0}
