# The generated download must be the bytes the download page promises, and it
# must live in the build tree only: nothing generated into the source tree.
file(SHA256 ${FILE} got)
file(READ ${PAGE} page)
string(FIND "${page}" "${got}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${FILE}: SHA-256 ${got} is not the one on ${PAGE}")
endif()
file(GLOB_RECURSE generated ${SOURCE}/*.bin ${SOURCE}/*.tmp.*)
if(generated)
  message(FATAL_ERROR "generated files in the source tree (an older build "
    "wrote them there; delete them): ${generated}")
endif()
