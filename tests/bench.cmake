# bench/run --quick once, as a smoke test: it must finish and write a
# well-formed report (bench/lib/smoke-test checks it). No speed assertions.
if(TARGET beneath)
  set(bench_args --beneath $<TARGET_FILE:beneath>)
  if(TARGET resolver_bench)
    list(APPEND bench_args --resolver-bench $<TARGET_FILE:resolver_bench>)
  endif()
  add_test(NAME bench_quick
    COMMAND ${PROJECT_SOURCE_DIR}/bench/lib/smoke-test
            ${CMAKE_CURRENT_BINARY_DIR}/bench-quick ${bench_args})
  set_tests_properties(bench_quick PROPERTIES TIMEOUT 420 LABELS bench)
endif()
