# SPDX-License-Identifier: MIT
# docs/configuration.md (the configuration reference) is `beneath --help`,
# verbatim: the
# ```text block right after "the reference below is `beneath --help`".
#   check:  cmake -DHELP=<conf-help-dump> -DREADME=README.md -P conf-readme.cmake
#   update: the same with -DUPDATE=ON (after adding or changing an option)
execute_process(COMMAND ${HELP} OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${HELP} failed: ${rc}")
endif()
file(READ ${README} readme)
set(marker "the reference below is `beneath --help`.\n\n```text\n")
string(FIND "${readme}" "${marker}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README}: the --help block marker is missing")
endif()
string(LENGTH "${marker}" mlen)
math(EXPR start "${at} + ${mlen}")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "```\n" len)
string(SUBSTRING "${rest}" 0 ${len} block)
if(block STREQUAL help)
  return()
endif()
if(UPDATE)
  string(SUBSTRING "${readme}" 0 ${start} head)
  string(SUBSTRING "${rest}" ${len} -1 tail)
  file(WRITE ${README} "${head}${help}${tail}")
  message(STATUS "${README}: configuration reference updated")
else()
  message(FATAL_ERROR "${README}: the configuration reference differs from "
    "--help; run: cmake -DHELP=${HELP} -DREADME=${README} -DUPDATE=ON "
    "-P ${CMAKE_CURRENT_LIST_FILE}")
endif()
