# Warnings are errors for the project's own code only (not in a fuzzing
# build: clang warns of other things than the compiler the project is built with).
add_library(simsync_warnings INTERFACE)
target_compile_options(simsync_warnings INTERFACE -Wall -Wextra)
if(NOT SIMSYNC_FUZZ)
  target_compile_options(simsync_warnings INTERFACE -Werror)
endif()

# Fuzzing: every file is instrumented for libFuzzer's coverage and checked by
# the sanitizers; tests/fuzz links its targets with libFuzzer itself.
if(SIMSYNC_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

if(SIMSYNC_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# The version every tool's --version prints: #include "simsync_version.hpp".
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/simsync_version.hpp @ONLY)
add_library(simsync_version INTERFACE)
target_include_directories(simsync_version INTERFACE ${PROJECT_BINARY_DIR}/generated)

# simsync_library(NAME SOURCES... [LINK libs...]): one static library per folder.
function(simsync_library name)
  cmake_parse_arguments(arg "" "" "SOURCES;LINK" ${ARGN})
  add_library(simsync_${name} STATIC ${arg_SOURCES})
  target_include_directories(simsync_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(simsync_${name} PUBLIC ${arg_LINK} PRIVATE simsync_warnings)
endfunction()

# simsync_test(NAME SOURCES... [LINK libs...] [LABELS labels...]):
# one GoogleTest binary, registered as one ctest.
function(simsync_test name)
  cmake_parse_arguments(arg "" "" "SOURCES;LINK;LABELS" ${ARGN})
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_LINK} GTest::gtest GTest::gtest_main
                        simsync_warnings)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${arg_LABELS}" TIMEOUT 600)
endfunction()

# simsync_tests_in(FOLDER PREFIX [LINK libs...] [LABELS labels...]
#                  [DEPENDS targets...] [DEFINITIONS defs...]):
# one ctest PREFIX_<name> per FOLDER/<name>_test.cpp (tests mirror sources).
function(simsync_tests_in folder prefix)
  cmake_parse_arguments(arg "" "" "LINK;LABELS;DEPENDS;DEFINITIONS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*_test.cpp)
  foreach(source ${sources})
    get_filename_component(name ${source} NAME_WE)
    simsync_test(${prefix}_${name} SOURCES ${source} LINK ${arg_LINK} LABELS ${arg_LABELS})
    if(arg_DEPENDS)
      add_dependencies(${prefix}_${name} ${arg_DEPENDS})
    endif()
    if(arg_DEFINITIONS)
      target_compile_definitions(${prefix}_${name} PRIVATE ${arg_DEFINITIONS})
    endif()
  endforeach()
endfunction()
