-- Removes a line and everything kept for it (token, mailbox, base, private
-- backup, what it discarded). Its claim (claim_line.lua) lives at
-- another shard; the gateway releases it once the line is gone. The last
-- line takes the account with it, and only the sibling carriers are told, so
-- they stop replicating here (and answer the ask if the person registers here
-- again); a sibling still owed outbox entries is sent the book first, since
-- those entries name cards the removal deletes (send_book_before_removal).
-- ARGV: idcode, line id, token hash (access_refused) or OPERATOR_PROOF when
-- the carrier retires the line. Returns {line_removed, account_removed}.
local id, line, token_hash = ARGV[1], ARGV[2], ARGV[3]
if token_hash == OPERATOR_PROOF then
  if redis.call('SREM', sims_key(id), line) == 0 then return fail('unknown_line') end
else
  local refusal = access_refused(id, line, token_hash)
  if refusal then return refusal end
  redis.call('SREM', sims_key(id), line)
end
redis.call('DEL', sim_key(line), pending_key(id, line), base_key(id, line),
           fetched_key(id, line), fetchlist_key(id, line), fetchrest_key(id, line),
           line_key(id, line),
           private_backup_key(id, line), reassert_key(id, line))
redis.call('DEL', private_history_key(id, line))
if redis.call('SCARD', sims_key(id)) > 0 then
  return remove_line_reply{line_removed = 1, account_removed = 0}
end
local siblings = redis.call('SMEMBERS', siblings_key(id))
send_book_before_removal(id, siblings)
for _, peer in ipairs(siblings) do tell(peer, id, 'retire') end
redis.call('DEL', account_key(id), shared_key(id), history_key(id), siblings_key(id),
           origins_key(id))
return remove_line_reply{line_removed = 1, account_removed = 1}
