# package.cmake - CPack's pre-build step for the Debian package
# (CPACK_PRE_BUILD_SCRIPTS): the installed tree is staged, and what Debian
# wants of a package that a plain "cmake --install" does not is made here:
# the man pages gzip -9n compressed, usr/share/doc/beneath/changelog.gz and
# the machine-readable copyright file (from LICENSE) in place of LICENSE.
#   in: CPACK_TEMPORARY_INSTALL_DIRECTORY (the staged tree), and
#       CPACK_BENEATH_DEB_CHANGELOG, CPACK_BENEATH_DEB_LICENSE set by deploy/CMakeLists.txt
set(stage "${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
if(NOT IS_DIRECTORY "${stage}/usr/share/doc/beneath")
  message(FATAL_ERROR "package.cmake: no usr/share/doc/beneath in ${stage}")
endif()

# gzip -9n: no name, no time stamp, so the same input gives the same bytes.
function(gzip_file path)
  execute_process(COMMAND gzip -9nf "${path}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package.cmake: gzip ${path}: ${rc}")
  endif()
endfunction()

file(GLOB pages "${stage}/usr/share/man/man*/*.[1-9]")
foreach(page ${pages})
  gzip_file("${page}")
endforeach()

set(doc "${stage}/usr/share/doc/beneath")
file(COPY_FILE "${CPACK_BENEATH_DEB_CHANGELOG}" "${doc}/changelog")
gzip_file("${doc}/changelog")

# DEP-5 copyright: the licence text of LICENSE, each line indented, blank
# lines as " ." (Debian's copyright format 1.0).
file(STRINGS "${CPACK_BENEATH_DEB_LICENSE}" lines)
set(text "")
set(holder "")
foreach(line IN LISTS lines)
  if(line MATCHES "^Copyright \\(c\\) (.*)$")
    set(holder "${CMAKE_MATCH_1}")
  endif()
  if(line STREQUAL "")
    string(APPEND text " .\n")
  else()
    string(APPEND text " ${line}\n")
  endif()
endforeach()
if(holder STREQUAL "")
  message(FATAL_ERROR "package.cmake: no Copyright line in LICENSE")
endif()
file(WRITE "${doc}/copyright"
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: beneath

Files: *
Copyright: ${holder}
License: Expat
${text}")
file(REMOVE "${doc}/LICENSE")
