-- flags: no-writes
-- The access check alone, for the reads that run no script (account_store's
-- read_cards and read_history): they read only once it succeeded, so a
-- refused token never costs the read of a whole book. It only reads, and
-- says so on its first line (store/scripts.cpp): so a line still reads its
-- book while its Redis, at maxmemory, refuses writes.
-- ARGV: idcode, line, token hash (access_refused). Returns 1.
local refusal = access_refused(ARGV[1], ARGV[2], ARGV[3])
if refusal then return refusal end
return 1
