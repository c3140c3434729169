# Deployment hooks of the real binary (tests/deploy/): the service-manager
# notifications (systemd Type=notify) and the --probe health check. The
# install, package and container tests are registered by deploy/CMakeLists.txt.
if(TARGET beneath AND TARGET e2e_harness)
  foreach(t notify probe)
    add_executable(test_${t} ${CMAKE_CURRENT_SOURCE_DIR}/deploy/test_${t}.c)
    target_link_libraries(test_${t} PRIVATE e2e_harness project_options)
    add_test(NAME ${t} COMMAND test_${t})
    set_tests_properties(${t} PROPERTIES
      ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_E2E_RESOLVER=kernel"
      TIMEOUT 300
      LABELS "e2e;deploy")
  endforeach()
endif()
