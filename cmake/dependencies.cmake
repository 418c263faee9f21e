# Every dependency comes from Debian's packages (tools/setup installs them).
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(GTest REQUIRED)
find_package(benchmark REQUIRED)
find_package(PkgConfig REQUIRED)
# Content codings of the gateway's bodies (gzip, deflate), and expanding
# stored cards.
find_package(ZLIB REQUIRED)

# hiredis's CMake config only sets variables; pkg-config gives a target.
pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# ISA-L's igzip compresses stored cards (core/card_compression.cpp).
pkg_check_modules(ISAL REQUIRED IMPORTED_TARGET libisal)
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd) # sd_notify

# libunistring has no pkg-config or CMake file.
find_path(UNISTRING_INCLUDE_DIR uninorm.h REQUIRED)
find_library(UNISTRING_LIBRARY unistring REQUIRED)
add_library(simsync_unistring INTERFACE)
target_include_directories(simsync_unistring INTERFACE ${UNISTRING_INCLUDE_DIR})
target_link_libraries(simsync_unistring INTERFACE ${UNISTRING_LIBRARY})

find_program(REDIS_SERVER redis-server REQUIRED)

# libcaf-dev ships no CMake config.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
find_library(CAF_IO_LIBRARY caf_io REQUIRED)
find_library(CAF_OPENSSL_LIBRARY caf_openssl REQUIRED)
add_library(simsync_caf INTERFACE)
target_include_directories(simsync_caf INTERFACE ${CAF_INCLUDE_DIR})
target_link_libraries(simsync_caf INTERFACE ${CAF_CORE_LIBRARY} ${CAF_IO_LIBRARY}
                      ${CAF_OPENSSL_LIBRARY} Threads::Threads)

# Metrics exposition (the admin port's /metrics) and the load tool's HTTP client.
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(CURL REQUIRED)
