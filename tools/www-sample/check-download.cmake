# The generated download must be the bytes the download page promises.
file(SHA256 ${FILE} got)
file(READ ${PAGE} page)
string(FIND "${page}" "${got}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${FILE}: SHA-256 ${got} is not the one on ${PAGE}")
endif()
