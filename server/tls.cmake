# beneath_tls: the OpenSSL side of HTTPS and validators. tls_material reads,
# checks and makes certificate material (handed to libmicrohttpd's GnuTLS as
# PEM); etag_cache computes and caches SHA-256 content digests.
find_package(OpenSSL 3 REQUIRED)
find_package(Threads REQUIRED)

add_library(beneath_tls STATIC
  ${CMAKE_CURRENT_LIST_DIR}/tls_material.c
  ${CMAKE_CURRENT_LIST_DIR}/etag_cache.c)
target_include_directories(beneath_tls PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(beneath_tls
  PUBLIC OpenSSL::SSL OpenSSL::Crypto Threads::Threads
  PRIVATE project_options)
