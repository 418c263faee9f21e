# The byte layout of a stored record, from its one source,
# store/contract/record.list (read at configure time; editing it configures
# again):
#   simsync_record_layout_header(OUT_DIR) writes OUT_DIR/core/record_layout.hpp
#   record_layout_lua(OUT_VAR) sets OUT_VAR to the Lua REC_ constants and the
#                              accessors rec_hlc, rec_hash and rec_deleted
# The Lua side gets the head's offsets worked out (1-based, as string.sub and
# string.byte count), so the scripts index records with constants.

set(record_layout_list ${PROJECT_SOURCE_DIR}/store/contract/record.list)

# Sets rec_separator, rec_hlc_digits, rec_hash_digits, rec_live and
# rec_tombstone in the caller's scope, checked.
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
endmacro()

function(simsync_record_layout_header out_dir)
  record_layout_read()
  set(cpp "#pragma once\n// Generated from store/contract/record.list by ")
  string(APPEND cpp "cmake/record_layout.cmake. Do not edit.\n\n#include <cstddef>\n\n")
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
  string(APPEND cpp "inline constexpr std::size_t hash_at = hlc_digits + 1;\n")
  string(APPEND cpp "inline constexpr std::size_t flag_at = hash_at + hash_digits + 1;\n")
  string(APPEND cpp "inline constexpr std::size_t origin_at = flag_at + 2;\n\n")
  string(APPEND cpp "} // namespace simsync::core::record_layout\n")
  file(WRITE ${out_dir}/core/record_layout.hpp.tmp "${cpp}")
  file(COPY_FILE ${out_dir}/core/record_layout.hpp.tmp ${out_dir}/core/record_layout.hpp
       ONLY_IF_DIFFERENT)
  file(REMOVE ${out_dir}/core/record_layout.hpp.tmp)
endfunction()

function(record_layout_lua out_var)
  record_layout_read()
  math(EXPR hash_at "${rec_hlc_digits} + 2")
  math(EXPR hash_end "${hash_at} + ${rec_hash_digits} - 1")
  math(EXPR flag_at "${hash_end} + 2")
  math(EXPR origin_at "${flag_at} + 2")
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
