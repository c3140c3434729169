# beneath_tls: HTTPS material and validators. tls_material reads, checks and
# makes certificate material with OpenSSL; tls hands it to libmicrohttpd's
# GnuTLS (certificate callback, reload) and builds TLS bodies; etag_cache
# computes and caches SHA-256 content digests.
find_package(OpenSSL 3 REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(GNUTLS REQUIRED IMPORTED_TARGET gnutls)
if(NOT TARGET PkgConfig::MHD)
  pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
endif()

add_library(beneath_tls STATIC
  ${CMAKE_CURRENT_LIST_DIR}/tls_material.c
  ${CMAKE_CURRENT_LIST_DIR}/tls.c
  ${CMAKE_CURRENT_LIST_DIR}/etag_cache.c)
target_include_directories(beneath_tls PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(beneath_tls
  PUBLIC OpenSSL::SSL OpenSSL::Crypto PkgConfig::GNUTLS PkgConfig::MHD
         Threads::Threads
  PRIVATE project_options)
