# Strictness on the wire: framing unit table, the hostile-message e2e table
# (both backends), testssl.sh against an https listener, and the libFuzzer
# targets (ENABLE_FUZZ, a clang build: preset fuzz).
add_executable(test_framing test_framing.c)
target_link_libraries(test_framing
  PRIVATE beneath_http PkgConfig::CHECK project_options)
add_test(NAME framing COMMAND test_framing)

# The hostile-message table and slow clients, once per backend.
if(TARGET beneath AND TARGET e2e_harness)
  add_executable(test_e2e_wire integration/test_wire.c)
  target_link_libraries(test_e2e_wire PRIVATE e2e_harness project_options)
  foreach(backend kernel emulated)
    add_test(NAME e2e_wire_${backend} COMMAND test_e2e_wire)
    set_tests_properties(e2e_wire_${backend} PROPERTIES
      ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_E2E_RESOLVER=${backend}"
      TIMEOUT 600
      LABELS e2e)
  endforeach()
  # Operator mistakes and faulty transfers (backend-agnostic).
  add_executable(test_e2e_wire_ops integration/test_wire_ops.c)
  target_link_libraries(test_e2e_wire_ops PRIVATE e2e_harness project_options)
  add_test(NAME e2e_wire_ops COMMAND test_e2e_wire_ops)
  set_tests_properties(e2e_wire_ops PROPERTIES
    ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_E2E_RESOLVER=kernel"
    TIMEOUT 600
    LABELS e2e)
endif()

# testssl.sh against an https listener (about 3 minutes; release builds only:
# under ASan it adds nothing but time).
if(TARGET beneath AND NOT ENABLE_ASAN)
  add_test(NAME testssl
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/testssl.sh $<TARGET_FILE:beneath>)
  set_tests_properties(testssl PROPERTIES
    ENVIRONMENT "OUT=${CMAKE_CURRENT_BINARY_DIR}/testssl.txt"
    TIMEOUT 600
    LABELS e2e)
endif()

# libFuzzer targets (the option is declared in conf.cmake).
if(ENABLE_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.cmake)
endif()
