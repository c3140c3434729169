# Docs-hosting modules (issue 5): pure C, no libmicrohttpd, so the Check
# suites test them without a server. The beneath executable links this
# library; included from server/CMakeLists.txt, or from tests/docs.cmake when
# the server does not include it.
if(NOT TARGET beneath_docs)
  add_library(beneath_docs STATIC
    ${PROJECT_SOURCE_DIR}/server/negotiate.c
    ${PROJECT_SOURCE_DIR}/server/cache_rules.c
    ${PROJECT_SOURCE_DIR}/server/errbuf.c
    ${PROJECT_SOURCE_DIR}/server/headers_opt.c
    ${PROJECT_SOURCE_DIR}/server/metrics.c
    ${PROJECT_SOURCE_DIR}/server/listing_json.c)
  target_include_directories(beneath_docs PUBLIC ${PROJECT_SOURCE_DIR}/server)
  target_link_libraries(beneath_docs PUBLIC resolver PRIVATE project_options)
endif()
