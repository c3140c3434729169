# The small-file path (issue 6, speed): end-to-end, once per backend.
if(TARGET e2e_harness)
  add_executable(test_e2e_cache integration/test_cache.c)
  target_link_libraries(test_e2e_cache PRIVATE e2e_harness project_options)
  foreach(backend kernel emulated)
    add_test(NAME e2e_cache_${backend} COMMAND test_e2e_cache)
    set_tests_properties(e2e_cache_${backend} PROPERTIES
      ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_E2E_RESOLVER=${backend}"
      TIMEOUT 300
      LABELS e2e)
  endforeach()
endif()
