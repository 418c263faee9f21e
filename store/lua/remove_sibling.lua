-- A peer carrier no longer holds an account for this idcode (lib.lua's
-- remove_sibling). ARGV: idcode, peer. Returns {sibling_removed}.
return {remove_sibling(ARGV[1], ARGV[2])}
