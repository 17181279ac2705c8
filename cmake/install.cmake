# What `cmake --install build --prefix PREFIX` puts where. The layout is fixed
# (not GNUInstallDirs') because hone finds its files relative to its own
# executable (src/core/paths.h): PREFIX/bin/hone looks for PREFIX/include and
# PREFIX/share/hone/.
#
#   bin/hone, bin/hone-sandbox, bin/hone-sandbox-cuda (with the CUDA backend)
#   include/hone/kernel.h           the candidate contract
#   share/hone/prompts/             the LLM prompt templates
#   share/hone/python/              the oracle and the compat runner, scanner, builder
#   share/hone/tasks/               the example suites (examples/, pytorch/)
#   share/doc/hone/                 README.md and docs/
set(HONE_INSTALL_SHARE share/hone)

install(TARGETS hone hone-sandbox RUNTIME DESTINATION bin)
if(HONE_HAVE_CUDA)
  # The CUDA sandbox links the toolkit's shared runtime and CUPTI, which live
  # outside the loader's default path in NVIDIA's installs.
  set(HONE_CUDA_RUNTIME_DIRS ${CUDAToolkit_LIBRARY_DIR})
  get_target_property(_hone_cupti CUDA::cupti IMPORTED_LOCATION)
  if(_hone_cupti)
    get_filename_component(_hone_cupti_dir "${_hone_cupti}" DIRECTORY)
    list(APPEND HONE_CUDA_RUNTIME_DIRS ${_hone_cupti_dir})
  endif()
  list(REMOVE_DUPLICATES HONE_CUDA_RUNTIME_DIRS)
  set_target_properties(hone-sandbox-cuda PROPERTIES INSTALL_RPATH "${HONE_CUDA_RUNTIME_DIRS}")
  install(TARGETS hone-sandbox-cuda RUNTIME DESTINATION bin)
endif()

install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/hone DESTINATION include)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/prompts/ DESTINATION ${HONE_INSTALL_SHARE}/prompts)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/ DESTINATION ${HONE_INSTALL_SHARE}/python
  FILES_MATCHING PATTERN "hone_*.py"
  PATTERN "tests" EXCLUDE
  PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tasks/examples ${CMAKE_SOURCE_DIR}/tasks/pytorch
  DESTINATION ${HONE_INSTALL_SHARE}/tasks
  PATTERN "__pycache__" EXCLUDE)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/hone)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/hone/docs)
