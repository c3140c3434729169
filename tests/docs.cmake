# Docs hosting (issue 5): one Check binary per module.
include(${PROJECT_SOURCE_DIR}/server/docs.cmake)
foreach(module negotiate cache_rules headers_opt metrics listing_json)
  add_executable(test_${module} ${CMAKE_CURRENT_SOURCE_DIR}/test_${module}.c)
  target_link_libraries(test_${module} PRIVATE beneath_docs PkgConfig::CHECK
    project_options)
  add_test(NAME ${module} COMMAND test_${module})
  set_tests_properties(${module} PROPERTIES LABELS "docs;unit"
    ENVIRONMENT "CK_FORK=yes")
endforeach()
