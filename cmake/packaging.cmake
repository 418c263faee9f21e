# Install rules and the Debian package. After a build,
#   cpack -G DEB            (in the build folder)
# makes simsync_<version>_amd64.deb: carrierd, phone, loadtest, simsync-pki,
# simsync-console, their man pages, the carrierd@.service template and
# example configs. packaging/README.md says how an operator installs and
# starts a node from it; tests/package/package_test.sh checks it.
#
# Paths are relative to the prefix: /usr in the package
# (CPACK_PACKAGING_INSTALL_PREFIX), CMAKE_INSTALL_PREFIX for `cmake --install`.
include(GNUInstallDirs)

set(simsync_packaging ${PROJECT_SOURCE_DIR}/packaging)

# -- programs --------------------------------------------------------------------

install(TARGETS carrierd phone loadtest RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# tools/pki and tools/console read the version from VERSION in the folder
# above their own (their ROOT), so they are installed with it in a private
# folder, lib/simsync (scripts: the same on every architecture, hence not
# the multiarch CMAKE_INSTALL_LIBDIR), and started by a wrapper in bin.
# tools/console works with --configs or --admin. tools/cluster (simsync-cluster)
# runs a trial deployment on one machine from the package's programs and the
# example deployments installed beside it (their node configs and the demo
# registry; it copies one to the user's state folder before its first use).
# chaos, fuzz and test drive a source tree and are not installed.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/pki ${PROJECT_SOURCE_DIR}/tools/console
                 ${PROJECT_SOURCE_DIR}/tools/cluster
        DESTINATION lib/simsync/tools)
install(FILES ${PROJECT_SOURCE_DIR}/VERSION DESTINATION lib/simsync)
# The Redis settings the store relies on, which tools/cluster starts its
# redis-servers with (from the folder above its own, as in a source tree).
install(FILES ${PROJECT_SOURCE_DIR}/store/redis-settings.conf DESTINATION lib/simsync/store)
install(PROGRAMS ${simsync_packaging}/bin/simsync-pki ${simsync_packaging}/bin/simsync-console
                 ${simsync_packaging}/bin/simsync-cluster
        DESTINATION ${CMAKE_INSTALL_BINDIR})
# Only the configs and the registry: a source tree's example folders also
# hold the data, keys and certificates of its own runs, which never ship.
set(simsync_examples ${PROJECT_SOURCE_DIR}/config/examples)
install(FILES ${simsync_examples}/demo-registry.ndjson DESTINATION lib/simsync/config/examples)
foreach(deployment three-carriers two-node-carrier)
  file(GLOB simsync_example_configs ${simsync_examples}/${deployment}/*.toml)
  install(FILES ${simsync_example_configs}
          DESTINATION lib/simsync/config/examples/${deployment})
endforeach()

# -- systemd ---------------------------------------------------------------------

# /usr/lib/systemd/system in the package: systemd reads it (on Debian 12
# /lib is /usr/lib), and it is where Debian puts units from Debian 13 on.
install(FILES ${simsync_packaging}/carrierd@.service DESTINATION lib/systemd/system)

# -- documentation and examples --------------------------------------------------

install(FILES ${simsync_packaging}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${simsync_packaging}/carrierd-example.toml ${simsync_packaging}/redis-example.conf
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# The Grafana dashboard and the Prometheus alerting rules of a node's /metrics.
install(FILES ${PROJECT_SOURCE_DIR}/config/grafana/simsync-dashboard.json
              ${PROJECT_SOURCE_DIR}/config/grafana/simsync-alerts.yml
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/monitoring)

# -- man pages, from each program's --help (help2man) ----------------------------

# A build without help2man still works, without man pages; the package test
# (tests/package) requires them (tools/setup installs help2man).
find_program(HELP2MAN help2man)
find_program(GZIP_PROGRAM gzip)
if(HELP2MAN AND GZIP_PROGRAM)
  set(simsync_man_dir ${PROJECT_BINARY_DIR}/man)
  file(MAKE_DIRECTORY ${simsync_man_dir})
  set(simsync_man_pages)
  # simsync_man_page(PAGE PROGRAM NAME DEPENDS...): PAGE.1.gz from
  # `PROGRAM --help`; NAME is the page's one-line description.
  function(simsync_man_page page program name)
    set(out ${simsync_man_dir}/${page}.1)
    # "PAGE (simsync) VERSION": help2man takes the page's name and the
    # package from it (and does not run --version).
    add_custom_command(
      OUTPUT ${out}.gz
      COMMAND ${HELP2MAN} --no-info "--version-string=${page} (simsync) ${PROJECT_VERSION}"
              "--name=${name}" --output=${out} ${program}
      COMMAND ${GZIP_PROGRAM} -9nf ${out}
      DEPENDS ${ARGN}
      COMMENT "man page ${page}(1)"
      VERBATIM)
    set(simsync_man_pages ${simsync_man_pages} ${out}.gz PARENT_SCOPE)
  endfunction()
  simsync_man_page(carrierd $<TARGET_FILE:carrierd> "one node of a simsync carrier" carrierd)
  simsync_man_page(phone $<TARGET_FILE:phone>
                   "a phone's address book, synced with its simsync carrier" phone)
  simsync_man_page(loadtest $<TARGET_FILE:loadtest> "load and verify a simsync deployment"
                   loadtest)
  simsync_man_page(simsync-pki ${PROJECT_SOURCE_DIR}/tools/pki
                   "TLS certificates and signing keys of a simsync deployment"
                   ${PROJECT_SOURCE_DIR}/tools/pki ${PROJECT_SOURCE_DIR}/VERSION)
  # No page for simsync-console: its --help names the source tree's
  # config/examples as the default of --configs, which is no place on a node.
  add_custom_target(simsync_man_pages ALL DEPENDS ${simsync_man_pages})
  install(FILES ${simsync_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man or gzip not found: no man pages are built or installed "
                 "(the package test needs them; tools/setup installs help2man)")
endif()

# -- the Debian package (cpack -G DEB) ----------------------------------------------

set(SIMSYNC_PACKAGE_MAINTAINER "simsync maintainers <maintainers@simsync.invalid>"
    CACHE STRING "The Maintainer field of the Debian package: Name <email>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME simsync)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR simsync)
set(CPACK_PACKAGE_CONTACT ${SIMSYNC_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "contact-sync backbone for mobile carriers")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "simsync keeps the address books of a subscriber's lines in sync, across the "
    "carriers of a federation. This package holds carrierd (one node of a carrier, "
    "run as the systemd template unit carrierd@.service, one instance per node "
    "config in /etc/simsync, each with its own Redis), the phone and loadtest "
    "clients, simsync-pki (TLS certificates and signing keys) and simsync-console "
    "(a live view of the nodes).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

# simsync_<version>_amd64.deb
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${SIMSYNC_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared libraries' packages come from dpkg-shlibdeps (every library the
# programs link is a Debian package's); then what the rest needs: each node's
# Redis (redis-server@.service), the postinst's adduser, simsync-pki's
# openssl, simsync-console's Python (tomllib: 3.11).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "redis-server, adduser, openssl, python3 (>= 3.11)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "curl")
# The user simsync and /etc/simsync, /var/lib/simsync (postinst); running
# nodes stopped on removal (prerm); daemon-reload (postinst, postrm).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${simsync_packaging}/debian/postinst
    ${simsync_packaging}/debian/prerm
    ${simsync_packaging}/debian/postrm)
# Maintainer scripts 0755, other control files 0644, whatever the source
# files' modes.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

# `make package_source` packs the source folder: never the build folders or
# the secrets tools/cluster makes there (as .gitignore keeps them out of git).
set(CPACK_SOURCE_IGNORE_FILES
    "/\\.git/" "/build[^/]*/" "/\\.cache/" "/__pycache__/"
    "/config/examples/[^/]+/(data|pki)/"
    "\\.admin\\.key$" "\\.redis\\.password" "\\.seal\\.key" "/federation\\.key$")

include(CPack)
