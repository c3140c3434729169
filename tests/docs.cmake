# Docs-hosting modules: one Check binary per module, linked against its
# layer's library.
foreach(pair negotiate:http cache_rules:http headers_opt:http metrics:daemon
        listing_json:files)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 module)
  list(GET pair 1 layer)
  add_executable(test_${module} ${CMAKE_CURRENT_SOURCE_DIR}/test_${module}.c)
  target_link_libraries(test_${module} PRIVATE beneath_${layer}
    PkgConfig::CHECK project_options)
  add_test(NAME ${module} COMMAND test_${module})
  set_tests_properties(${module} PROPERTIES LABELS "docs;unit"
    ENVIRONMENT "CK_FORK=yes")
endforeach()

# End-to-end (tests/docs/): the real binary, through the e2e harness, once
# per backend; sd_launch passes sockets as fds 3 and 4 (socket activation).
if(TARGET beneath AND TARGET e2e_harness)
  add_executable(sd_launch ${CMAKE_CURRENT_SOURCE_DIR}/docs/sd_launch.c)
  target_link_libraries(sd_launch PRIVATE project_options)
  add_executable(test_e2e_docs ${CMAKE_CURRENT_SOURCE_DIR}/docs/test_e2e_docs.c)
  target_link_libraries(test_e2e_docs PRIVATE e2e_harness project_options)
  foreach(backend kernel emulated)
    add_test(NAME e2e_docs_${backend} COMMAND test_e2e_docs)
    set_tests_properties(e2e_docs_${backend} PROPERTIES
      ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;DOCS_BENEATH_BIN=$<TARGET_FILE:beneath>;DOCS_SD_LAUNCH=$<TARGET_FILE:sd_launch>;BENEATH_E2E_RESOLVER=${backend}"
      TIMEOUT 900
      LABELS "e2e;docs")
  endforeach()
endif()

# A real browser: www-sample/ with precompressed assets in headless Chromium.
if(TARGET beneath)
  add_test(NAME e2e_docs_chromium
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/chromium.sh $<TARGET_FILE:beneath>
            ${PROJECT_SOURCE_DIR})
  set_tests_properties(e2e_docs_chromium PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS "e2e;docs;browser")
endif()
