# Writes OUTPUT, a C++ source holding the store's Lua code, so the scripts
# ship inside the binary: simsync::store::detail::lua_lib (store/lua/lib.lua),
# lua_contract (CONTRACT, made by cmake/store_contract.cmake) and
# script_bodies, the body of every other file of INPUTS (paths separated by
# |) in file-name order, the order of enum script (store/script_list.hpp).
set(out "// Generated from store/lua/*.lua by cmake/embed_lua.cmake. Do not edit.\n")
string(APPEND out "#include \"store/script_list.hpp\"\n\nnamespace simsync::store::detail {\n")
string(REPLACE "|" ";" inputs "${INPUTS}")
list(SORT inputs)
file(READ ${CONTRACT} contract)
string(APPEND out "const std::string_view lua_contract = R\"lua(${contract})lua\";\n")
set(bodies "")
foreach(input ${inputs})
  get_filename_component(name ${input} NAME_WE)
  file(READ ${input} text)
  if(name STREQUAL "lib")
    string(APPEND out "const std::string_view lua_lib = R\"lua(${text})lua\";\n")
  else()
    string(APPEND bodies "    R\"lua(${text})lua\",\n")
  endif()
endforeach()
string(APPEND out "const std::array<std::string_view, std::size(script_names)> script_bodies{{\n")
string(APPEND out "${bodies}}};\n")
string(APPEND out "} // namespace simsync::store::detail\n")
file(WRITE ${OUTPUT}.tmp "${out}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
