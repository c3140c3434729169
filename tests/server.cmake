# Unit suites of server/: one Check binary per module, linked against
# beneath_core (the server's sources minus main.c).
foreach(suite status mime date target cond range listing log root)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_${suite}.c)
    add_executable(test_${suite} test_${suite}.c)
    target_link_libraries(test_${suite}
      PRIVATE beneath_core PkgConfig::CHECK project_options)
    add_test(NAME ${suite} COMMAND test_${suite})
  endif()
endforeach()
