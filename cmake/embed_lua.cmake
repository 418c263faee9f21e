# Writes OUTPUT, a C++ source defining simsync::store::detail::lua_<name> for
# every Lua file in INPUTS (paths separated by |), so the scripts ship inside the binary.
set(out "// Generated from store/lua/*.lua by cmake/embed_lua.cmake. Do not edit.\n")
string(APPEND out "#include <string_view>\nnamespace simsync::store::detail {\n")
string(REPLACE "|" ";" inputs "${INPUTS}")
foreach(input ${inputs})
  get_filename_component(name ${input} NAME_WE)
  file(READ ${input} text)
  string(APPEND out "extern const std::string_view lua_${name};\n")
  string(APPEND out "const std::string_view lua_${name} = R\"lua(${text})lua\";\n")
endforeach()
string(APPEND out "} // namespace simsync::store::detail\n")
file(WRITE ${OUTPUT}.tmp "${out}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
