# SPDX-License-Identifier: MIT
# Assemble the served copy of www-sample/ in the build tree: every file as it
# is, except the pages (HTML files whose first line is a "<!-- page" comment),
# which are put into the one skeleton, _layout.html (head, header and
# navigation, footer). Files whose names start with "_" are not copied.
#   cmake -DSRC=www-sample -DDST=<build>/www-sample -DVERSION=x.y.z -P assemble.cmake
# A page's first line is
#   <!-- page title="the <title>" description="the meta description" -->
# and the rest of the file is the content of <main>. The layout's {{root}}
# is the path from the page's folder to the site root ("" or "../"),
# {{home}} the link to the root, {{current:SECTION}} marks the navigation
# entry of the page's top folder (home for the root) as the current page.
file(READ ${SRC}/_layout.html layout)
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*)
foreach(rel IN LISTS files)
  get_filename_component(name ${rel} NAME)
  if(name MATCHES "^_")
    continue()
  endif()
  get_filename_component(dir ${DST}/${rel} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  set(text "")
  if(rel MATCHES "\\.html$")
    file(READ ${SRC}/${rel} text)
  endif()
  string(FIND "${text}" "<!-- page " at)
  if(NOT at EQUAL 0)
    file(COPY ${SRC}/${rel} DESTINATION ${dir})
    continue()
  endif()
  string(FIND "${text}" "\n" end)
  string(SUBSTRING "${text}" 0 ${end} head)
  math(EXPR start "${end} + 1")
  string(SUBSTRING "${text}" ${start} -1 body)
  foreach(key title description)
    if(NOT head MATCHES " ${key}=\"([^\"]*)\"")
      message(FATAL_ERROR "${SRC}/${rel}: no ${key}=\"...\" on the first line")
    endif()
    set(${key} "${CMAKE_MATCH_1}")
  endforeach()
  if(rel MATCHES "/")
    string(REGEX REPLACE "/.*" "" section "${rel}")
    set(root "../")
    set(home "../")
  else()
    set(section home)
    set(root "")
    set(home "./")
  endif()
  set(page "${layout}")
  foreach(nav home guide reference downloads)
    set(current "")
    if(nav STREQUAL section)
      set(current " aria-current=\"page\"")
    endif()
    string(REPLACE "{{current:${nav}}}" "${current}" page "${page}")
  endforeach()
  foreach(key title description root home)
    string(REPLACE "{{${key}}}" "${${key}}" page "${page}")
  endforeach()
  string(REPLACE "{{version}}" "${VERSION}" page "${page}")
  # last: the body may hold anything, placeholders included
  string(REPLACE "{{body}}" "${body}" page "${page}")
  file(WRITE ${DST}/${rel} "${page}")
endforeach()
