# SPDX-License-Identifier: MIT
# The resolver's Check tests. One binary, one ctest entry per suite
# (CK_RUN_SUITE picks it). The binary makes its own private mount namespace,
# so it needs root: for any other user it prints why and exits 77, which
# ctest reports as skipped. resolver_lexical_unsafe runs nothing: it reports
# the case-table rows the lexical backend is not run on (unsafe by design)
# as one skipped test, so the count is seen in every ctest summary.
find_package(Threads REQUIRED)
add_executable(test_resolver
  ${CMAKE_CURRENT_SOURCE_DIR}/test_resolver.c
  ${CMAKE_CURRENT_SOURCE_DIR}/test_resolver_stress.c
  ${CMAKE_CURRENT_SOURCE_DIR}/test_resolver_cache.c
  ${CMAKE_CURRENT_SOURCE_DIR}/fixture.c)
target_include_directories(test_resolver PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
  ${PROJECT_SOURCE_DIR}/resolver/src)
target_compile_definitions(test_resolver PRIVATE
  BENEATH_RESOLVE_PATH="$<TARGET_FILE:beneath-resolve>")
target_link_libraries(test_resolver PRIVATE resolver PkgConfig::CHECK
  Threads::Threads project_options)
add_dependencies(test_resolver beneath-resolve)
foreach(suite table cli differential race fallback cache)
  add_test(NAME resolver_${suite} COMMAND test_resolver)
  set_tests_properties(resolver_${suite} PROPERTIES
    ENVIRONMENT "CK_RUN_SUITE=${suite};CK_DEFAULT_TIMEOUT=60"
    SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME resolver_lexical_unsafe COMMAND test_resolver --lexical-skips)
set_tests_properties(resolver_lexical_unsafe PROPERTIES SKIP_RETURN_CODE 77)
