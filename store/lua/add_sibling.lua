-- F1 announce received (lib.lua's add_sibling).
-- ARGV: idcode, peer. Returns {sibling_added, records_sent}.
return {add_sibling(ARGV[1], ARGV[2])}
