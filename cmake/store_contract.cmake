# The contract between the store's C++ and its Lua scripts, made from one
# source each, at configure time (editing a source configures again):
#   store/contract/keys.list     -> store/keys.hpp and the Lua key functions
#   store/contract/failures.list -> the C++ table of script failures and the
#                                   Lua set fail() checks
#   store/contract/replies.list  -> store/replies.hpp and the Lua <script>_reply
#                                   functions, for replies that are counts
#   store/contract/history.list  -> store/history_fields.hpp and the Lua HIST_
#                                   constants: a history entry's field names
#   store/contract/record.list   -> core/record_layout.hpp (made for core/ by
#                                   simsync_record_layout_header), the Lua REC_
#                                   constants and rec_hlc, rec_hash, rec_deleted
#   store/lua/*.lua              -> store/script_list.hpp: enum script, one
#                                   value per script (lib.lua is the library's
#                                   head, not a script), in file-name order,
#                                   the order of cmake/embed_lua.cmake's bodies
# simsync_store_contract(OUT_DIR) writes OUT_DIR/store/{keys,failures,replies,
# history_fields,script_list}.hpp and OUT_DIR/store/contract.lua.

# Appends "// text" (C++) and "-- text" (Lua) lines for a "# text" comment.
macro(contract_comment line)
  string(REGEX REPLACE "^# ?" "" _text "${line}")
  string(APPEND _doc_cpp "/// ${_text}\n")
  string(APPEND _doc_lua "-- ${_text}\n")
endmacro()

# The entries of a list file: its lines that are neither blank nor "# "
# comments, each of which must match `pattern` (`form` says what it should be).
function(contract_read file pattern form out_entries)
  file(STRINGS ${file} lines)
  set(entries "")
  foreach(line IN LISTS lines)
    if(line MATCHES "${pattern}")
      list(APPEND entries "${line}")
    elseif(NOT line MATCHES "^#" AND NOT line STREQUAL "")
      message(FATAL_ERROR "${file}: not \"${form}\" nor a comment: ${line}")
    endif()
  endforeach()
  set(${out_entries} "${entries}" PARENT_SCOPE)
endfunction()

# The "<name> <value>" entries of a list file whose "# " comments document
# them: what comes before the first blank line is the file's own header;
# after it, the comments just before an entry are its documentation. Each
# entry must match `pattern`. Sets, in the caller's scope, `out_indices` (0,
# 1, ...: one per entry) and, for each entry i, contract_name_<i>,
# contract_value_<i>, and contract_doc_cpp_<i> / contract_doc_lua_<i> (its
# comments as C++ and Lua lines).
function(contract_read_documented file pattern form out_indices)
  file(STRINGS ${file} lines)
  set(_doc_cpp "")
  set(_doc_lua "")
  set(in_header TRUE)
  set(count 0)
  set(indices "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "")
      set(in_header FALSE)
      set(_doc_cpp "")
      set(_doc_lua "")
    elseif(line MATCHES "^#")
      if(NOT in_header)
        contract_comment("${line}")
      endif()
    elseif(line MATCHES "${pattern}" AND line MATCHES "^([^ ]+) ([^ ]+)$")
      set(contract_name_${count} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      set(contract_value_${count} "${CMAKE_MATCH_2}" PARENT_SCOPE)
      set(contract_doc_cpp_${count} "${_doc_cpp}" PARENT_SCOPE)
      set(contract_doc_lua_${count} "${_doc_lua}" PARENT_SCOPE)
      list(APPEND indices ${count})
      math(EXPR count "${count} + 1")
      set(_doc_cpp "")
      set(_doc_lua "")
    else()
      message(FATAL_ERROR "${file}: not \"${form}\": ${line}")
    endif()
  endforeach()
  set(${out_indices} "${indices}" PARENT_SCOPE)
endfunction()

# C++ and Lua for one key pattern such as pending:{<id>}:<line>.
function(contract_key name pattern out_cpp out_lua out_prefix)
  string(REGEX MATCHALL "<[a-z]+>" params "${pattern}")
  string(REGEX REPLACE "<[a-z]+>" ";" literals "${pattern}")
  set(cpp_params "")
  set(lua_params "")
  foreach(p IN LISTS params)
    string(REGEX REPLACE "[<>]" "" p "${p}")
    list(APPEND cpp_params "const std::string& ${p}")
    list(APPEND lua_params "${p}")
  endforeach()
  # literals and parameters alternate: literal0 param0 literal1 param1 ...
  set(cpp_expr "")
  set(lua_expr "")
  list(LENGTH params count)
  list(LENGTH literals literal_count)
  math(EXPR last "${literal_count} - 1")
  foreach(i RANGE ${last})
    list(GET literals ${i} literal)
    if(NOT literal STREQUAL "")
      if(cpp_expr STREQUAL "")
        list(APPEND cpp_expr "std::string(\"${literal}\")")
      else()
        list(APPEND cpp_expr "\"${literal}\"")
      endif()
      list(APPEND lua_expr "'${literal}'")
    endif()
    if(i LESS count)
      list(GET lua_params ${i} p)
      list(APPEND cpp_expr "${p}")
      list(APPEND lua_expr "${p}")
    endif()
  endforeach()
  list(JOIN cpp_params ", " cpp_params)
  list(JOIN lua_params ", " lua_params)
  list(JOIN cpp_expr " + " cpp_expr)
  list(JOIN lua_expr " .. " lua_expr)
  # What every key of the kind starts with (up to its first parameter or hash
  # tag), for code that tells keys apart by name (store/reseal.cpp).
  string(REGEX REPLACE "[{<].*$" "" prefix "${pattern}")
  set(${out_cpp} "inline std::string ${name}(${cpp_params}) { return ${cpp_expr}; }\n"
      PARENT_SCOPE)
  set(${out_prefix} "inline constexpr std::string_view ${name} = \"${prefix}\";\n"
      PARENT_SCOPE)
  set(${out_lua} "local function ${name}_key(${lua_params}) return ${lua_expr} end\n"
      PARENT_SCOPE)
endfunction()

function(contract_write file text)
  file(WRITE ${file}.tmp "${text}")
  file(COPY_FILE ${file}.tmp ${file} ONLY_IF_DIFFERENT)
  file(REMOVE ${file}.tmp)
endfunction()

# The record's byte layout, store/contract/record.list: C++ constants for
# core/ (simsync_record_layout_header, which core/CMakeLists.txt calls) and
# Lua constants and accessors for the library (record_layout_lua). Both
# sides get the head's offsets as numbers, worked out once here (the Lua side
# 1-based, as string.sub and string.byte count), so that the scripts index
# records with constants.
set(record_layout_list ${PROJECT_SOURCE_DIR}/store/contract/record.list)

# Sets rec_separator, rec_hlc_digits, rec_hash_digits, rec_live and
# rec_tombstone in the caller's scope, checked, and the head's offsets
# rec_hash_at, rec_flag_at and rec_origin_at (0-based).
macro(record_layout_read)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${record_layout_list})
  file(STRINGS ${record_layout_list} _lines)
  foreach(_line IN LISTS _lines)
    # Characters that C++ and Lua literals and Lua's string.format take as
    # they are.
    if(_line MATCHES "^separator ([|;:/!~^,])$")
      set(rec_separator "${CMAKE_MATCH_1}")
    elseif(_line MATCHES "^(live|tombstone) ([A-Z])$")
      set(rec_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    elseif(_line MATCHES "^(hlc_digits|hash_digits) ([1-9][0-9]*)$")
      set(rec_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    elseif(NOT _line MATCHES "^#" AND NOT _line STREQUAL "")
      message(FATAL_ERROR "store/contract/record.list: not a known \"<name> <value>\": ${_line}")
    endif()
  endforeach()
  foreach(_name separator hlc_digits hash_digits live tombstone)
    if(NOT DEFINED rec_${_name})
      message(FATAL_ERROR "store/contract/record.list: no ${_name}")
    endif()
  endforeach()
  if(rec_live STREQUAL rec_tombstone)
    message(FATAL_ERROR "store/contract/record.list: live and tombstone are one flag")
  endif()
  # Where the head's parts start, 0-based, worked out once for both sides
  # (HLC|HASH|FLAG|origin: each part and its separator).
  math(EXPR rec_hash_at "${rec_hlc_digits} + 1")
  math(EXPR rec_flag_at "${rec_hash_at} + ${rec_hash_digits} + 1")
  math(EXPR rec_origin_at "${rec_flag_at} + 2")
endmacro()

function(simsync_record_layout_header out_dir)
  record_layout_read()
  set(cpp "#pragma once\n// Generated from store/contract/record.list by ")
  string(APPEND cpp "cmake/store_contract.cmake. Do not edit.\n\n#include <cstddef>\n\n")
  string(APPEND cpp "/// A record's bytes: HLC|HASH|FLAG|carrier|line|body (core/record.hpp).\n")
  string(APPEND cpp "namespace simsync::core::record_layout {\n\n")
  string(APPEND cpp "inline constexpr char separator = '${rec_separator}';\n")
  string(APPEND cpp "/// The HLC's decimal digits, zero padded.\n")
  string(APPEND cpp "inline constexpr std::size_t hlc_digits = ${rec_hlc_digits};\n")
  string(APPEND cpp "/// The content hash's hex digits.\n")
  string(APPEND cpp "inline constexpr std::size_t hash_digits = ${rec_hash_digits};\n")
  string(APPEND cpp "inline constexpr char live = '${rec_live}';\n")
  string(APPEND cpp "inline constexpr char tombstone = '${rec_tombstone}';\n\n")
  string(APPEND cpp "/// Where the head's parts start (0-based).\n")
  string(APPEND cpp "inline constexpr std::size_t hash_at = ${rec_hash_at};\n")
  string(APPEND cpp "inline constexpr std::size_t flag_at = ${rec_flag_at};\n")
  string(APPEND cpp "inline constexpr std::size_t origin_at = ${rec_origin_at};\n\n")
  string(APPEND cpp "} // namespace simsync::core::record_layout\n")
  contract_write(${out_dir}/core/record_layout.hpp "${cpp}")
endfunction()

function(record_layout_lua out_var)
  record_layout_read()
  # Lua counts from 1.
  math(EXPR hash_at "${rec_hash_at} + 1")
  math(EXPR hash_end "${rec_hash_at} + ${rec_hash_digits}")
  math(EXPR flag_at "${rec_flag_at} + 1")
  math(EXPR origin_at "${rec_origin_at} + 1")
  # Worked out here too: a library's code cannot call string functions as it
  # loads (Redis gives its load no `string`).
  string(HEX "${rec_tombstone}" tombstone_hex)
  math(EXPR tombstone_byte "0x${tombstone_hex}")
  string(REPEAT "0" ${rec_hash_digits} tombstone_hash)
  set(lua "\n-- Records (store/contract/record.list): HLC|HASH|FLAG|carrier|line|body,\n")
  string(APPEND lua "-- and where the head's parts are (1-based).\n")
  string(APPEND lua "local REC_SEP = '${rec_separator}'\n")
  string(APPEND lua "local REC_HLC_DIGITS = ${rec_hlc_digits}\n")
  string(APPEND lua "local REC_HLC_FORMAT = '%0${rec_hlc_digits}d'\n")
  string(APPEND lua "local REC_LIVE = '${rec_live}'\n")
  string(APPEND lua "local REC_TOMBSTONE = '${rec_tombstone}'\n")
  string(APPEND lua "-- A tombstone's hash: zeros.\n")
  string(APPEND lua "local REC_TOMBSTONE_HASH = '${tombstone_hash}'\n")
  string(APPEND lua "local REC_ORIGIN_AT = ${origin_at}\n")
  # The accessors every comparison of records calls, with the offsets written
  # in: a constant is an instruction fewer than a variable where Lua compares.
  string(APPEND lua "local function rec_hlc(r) return string.sub(r, 1, ${rec_hlc_digits}) end\n")
  string(APPEND lua "local function rec_hash(r) return string.sub(r, ${hash_at}, ${hash_end}) end\n")
  string(APPEND lua "-- Whether the flag is '${rec_tombstone}' (byte ${tombstone_byte}).\n")
  string(APPEND lua "local function rec_deleted(r) return string.byte(r, ${flag_at}) == ${tombstone_byte} end\n")
  set(${out_var} "${lua}" PARENT_SCOPE)
endfunction()

# History entries, store/contract/history.list: writes
# out_dir/store/history_fields.hpp and sets out_lua to the Lua constants.
function(history_fields_contract contract_dir out_dir generated out_lua)
  set(list ${contract_dir}/history.list)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${list})
  set(cpp "#pragma once\n// ${generated}\n\n#include <string_view>\n\n")
  string(APPEND cpp "/// The fields of a history entry (store/history_entry.hpp).\n")
  string(APPEND cpp "namespace simsync::store::history_fields {\n\n")
  set(lua "\n-- History entries' fields (store/contract/history.list).\n")
  contract_read_documented(${list} "^[a-z_]+ [a-z]+$" "<name> <field>" entries)
  set(names "")
  set(values "")
  foreach(i IN LISTS entries)
    set(name ${contract_name_${i}})
    set(value ${contract_value_${i}})
    if(name IN_LIST names OR value IN_LIST values)
      message(FATAL_ERROR "${list}: ${name} or ${value} twice")
    endif()
    list(APPEND names ${name})
    list(APPEND values ${value})
    string(TOUPPER ${name} upper)
    string(APPEND cpp "${contract_doc_cpp_${i}}")
    string(APPEND cpp "inline constexpr std::string_view ${name} = \"${value}\";\n")
    string(APPEND lua "${contract_doc_lua_${i}}local HIST_${upper} = '${value}'\n")
  endforeach()
  string(APPEND cpp "\n} // namespace simsync::store::history_fields\n")
  contract_write(${out_dir}/store/history_fields.hpp "${cpp}")
  set(${out_lua} "${lua}" PARENT_SCOPE)
endfunction()

function(simsync_store_contract out_dir)
  set(source_dir ${PROJECT_SOURCE_DIR}/store)
  set(contract_dir ${source_dir}/contract)
  set(generated "Generated from store/contract/ by cmake/store_contract.cmake. Do not edit.")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${contract_dir}/keys.list
               ${contract_dir}/failures.list ${contract_dir}/replies.list)

  # Keys, with their comments on both sides.
  set(cpp "#pragma once\n// ${generated}\n\n#include <string>\n#include <string_view>\n\n")
  string(APPEND cpp "namespace simsync::store::keys {\n\n")
  set(prefixes "")
  set(lua "-- ${generated}\n\n-- Keys (store/contract/keys.list).\n")
  contract_read_documented(${contract_dir}/keys.list "^[a-z_]+ [^ ]+$" "<name> <pattern>"
                           entries)
  foreach(i IN LISTS entries)
    contract_key(${contract_name_${i}} "${contract_value_${i}}" key_cpp key_lua key_prefix)
    string(APPEND cpp "${contract_doc_cpp_${i}}${key_cpp}")
    string(APPEND prefixes "${key_prefix}")
    string(APPEND lua "${contract_doc_lua_${i}}${key_lua}")
  endforeach()
  string(APPEND cpp "\n/// What every key of each kind starts with.\n")
  string(APPEND cpp "namespace prefix {\n${prefixes}")
  string(APPEND cpp "} // namespace prefix\n\n} // namespace simsync::store::keys\n")
  contract_write(${out_dir}/store/keys.hpp "${cpp}")

  # Failures: the C++ table and the Lua set.
  contract_read(${contract_dir}/failures.list "^[a-z_]+ [a-z_]+$" "<name> <ec>" failures)
  set(cpp "#pragma once\n// ${generated}\n\n#include \"core/error.hpp\"\n\n")
  string(APPEND cpp "#include <string_view>\n\nnamespace simsync::store::detail {\n\n")
  string(APPEND cpp "struct script_failure {\n  std::string_view name;\n  ec code;\n};\n\n")
  string(APPEND cpp "inline constexpr script_failure script_failures[] = {\n")
  string(APPEND lua "\n-- The failures a script may answer (store/contract/failures.list).\n")
  string(APPEND lua "local FAILURES = {\n")
  foreach(entry IN LISTS failures)
    string(REPLACE " " ";" pair "${entry}")
    list(GET pair 0 name)
    list(GET pair 1 code)
    string(APPEND cpp "    {\"${name}\", ec::${code}},\n")
    string(APPEND lua "  ${name} = true,\n")
  endforeach()
  string(APPEND cpp "};\n\n} // namespace simsync::store::detail\n")
  string(APPEND lua "}\n")
  contract_write(${out_dir}/store/failures.hpp "${cpp}")

  # Replies that are a list of counts: a C++ struct and a Lua function each.
  contract_read(${contract_dir}/replies.list "^[a-z_]+( [a-z_]+)+$" "<script> <count>..."
                replies)
  set(cpp "#pragma once\n// ${generated}\n\n#include <cstddef>\n#include <cstdint>\n\n")
  string(APPEND cpp "namespace simsync::store::replies {\n\n")
  string(APPEND lua "\n-- Replies of counts (store/contract/replies.list): each takes the counts\n")
  string(APPEND lua "-- by name and gives them in the order C++ reads them. The order is\n")
  string(APPEND lua "-- written out and the names made once, not looped over at every call.\n")
  string(APPEND lua "local function counts_in_order(script, names, out)\n")
  string(APPEND lua "  for i = 1, #names do\n")
  string(APPEND lua "    if out[i] == nil then\n")
  string(APPEND lua "      error(script .. ' reply: no ' .. names[i] .. ")
  string(APPEND lua "' (store/contract/replies.list)')\n")
  string(APPEND lua "    end\n  end\n  return out\nend\n")
  foreach(line IN LISTS replies)
    string(REPLACE " " ";" words "${line}")
    list(POP_FRONT words script)
    list(LENGTH words count)
    string(APPEND cpp "/// ${script}.lua's reply.\nstruct ${script} {\n")
    string(APPEND cpp "  static constexpr const char* script = \"${script}\";\n")
    string(APPEND cpp "  static constexpr std::size_t size = ${count};\n")
    set(reads "")
    set(index 0)
    set(lua_names "")
    set(lua_counts "")
    foreach(word IN LISTS words)
      string(APPEND cpp "  std::uint64_t ${word} = 0;\n")
      string(APPEND reads "    out.${word} = counts[${index}];\n")
      string(APPEND lua_names "'${word}', ")
      string(APPEND lua_counts "counts.${word}, ")
      math(EXPR index "${index} + 1")
    endforeach()
    string(APPEND cpp "  static ${script} from(const std::uint64_t* counts) {\n")
    string(APPEND cpp "    ${script} out;\n${reads}    return out;\n  }\n};\n\n")
    string(REGEX REPLACE ", $" "" lua_names "${lua_names}")
    string(REGEX REPLACE ", $" "" lua_counts "${lua_counts}")
    string(APPEND lua "local ${script}_names = {${lua_names}}\n")
    string(APPEND lua "local function ${script}_reply(counts)\n")
    string(APPEND lua "  return counts_in_order('${script}', ${script}_names,\n")
    string(APPEND lua "                         {${lua_counts}})\nend\n")
  endforeach()
  string(APPEND cpp "} // namespace simsync::store::replies\n")
  contract_write(${out_dir}/store/replies.hpp "${cpp}")
  record_layout_lua(record_lua)
  string(APPEND lua "${record_lua}")
  history_fields_contract(${contract_dir} ${out_dir} "${generated}" history_lua)
  string(APPEND lua "${history_lua}")
  contract_write(${out_dir}/store/contract.lua "${lua}")

  # The scripts: one enum value per store/lua/<name>.lua but lib.lua.
  file(GLOB scripts CONFIGURE_DEPENDS ${source_dir}/lua/*.lua)
  list(SORT scripts)
  set(cpp "#pragma once\n// Generated from the files in store/lua/ by ")
  string(APPEND cpp "cmake/store_contract.cmake. Do not edit.\n\n")
  string(APPEND cpp "#include <array>\n#include <iterator>\n#include <string_view>\n\n")
  string(APPEND cpp "namespace simsync::store {\n\n")
  string(APPEND cpp "/// The store's Lua scripts, one per flow step (store/lua/<name>.lua), ")
  string(APPEND cpp "each a\n/// function of one Redis function library with store/lua/lib.lua ")
  string(APPEND cpp "at its head.\n")
  string(APPEND cpp "enum class script {\n")
  set(names "")
  foreach(path IN LISTS scripts)
    get_filename_component(name ${path} NAME_WE)
    if(NOT name STREQUAL "lib")
      string(APPEND cpp "  ${name},\n")
      string(APPEND names "    \"${name}\",\n")
    endif()
  endforeach()
  string(APPEND cpp "};\n\nnamespace detail {\n")
  string(APPEND cpp "/// Each script's name, in the order of enum script.\n")
  string(APPEND cpp "inline constexpr std::string_view script_names[] = {\n${names}};\n")
  string(APPEND cpp "/// Each script's body (the generated lua_scripts.cpp), in the same order.\n")
  string(APPEND cpp "extern const std::array<std::string_view, std::size(script_names)> ")
  string(APPEND cpp "script_bodies;\n/// The library's head: store/lua/lib.lua, and what is made ")
  string(APPEND cpp "from store/contract/.\n")
  string(APPEND cpp "extern const std::string_view lua_lib;\n")
  string(APPEND cpp "extern const std::string_view lua_contract;\n")
  string(APPEND cpp "} // namespace detail\n\n} // namespace simsync::store\n")
  contract_write(${out_dir}/store/script_list.hpp "${cpp}")
endfunction()
