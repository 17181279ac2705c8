# The Debian package: `cpack -G DEB` in the build folder writes
# hone_VERSION_ARCH.deb from the install rules (cmake/install.cmake), with
# PREFIX /usr. The shared libraries' packages come from dpkg-shlibdeps; the
# rest of what hone runs at run time is listed here (docs/DEPENDENCIES.md).
set(HONE_PACKAGE_CONTACT "hone maintainers <maintainers@users.noreply.a-seed-456bb5a3.example>"
  CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hone)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${HONE_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "verified, fast GPU and CPU kernels written with LLMs")
set(CPACK_PACKAGE_DESCRIPTION
  "hone evaluates kernels written by LLMs: it builds a candidate, runs it in a \
sandbox, verifies it against a reference over many seeds, shapes and value \
distributions in a separate trusted process, and times it against the \
reference (interleaved, cache-flushed, with confidence intervals). It runs \
LLM-guided searches for faster kernels and scores kernel-writing models on \
KernelBench-style suites.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(HONE_HAVE_CUDA)
  # The toolkit's libraries and the driver's libcuda.so.1 belong to no Debian
  # package: dpkg-shlibdeps must find them (else it stops) and leaves them out
  # of Depends. A build machine may have no driver, so libcuda.so.1 is the
  # toolkit's stub under that name, in a folder of its own.
  set(_hone_stub_dir ${CMAKE_BINARY_DIR}/cpack-cuda-stub)
  get_target_property(_hone_driver CUDA::cuda_driver IMPORTED_LOCATION)
  if(_hone_driver)
    file(MAKE_DIRECTORY ${_hone_stub_dir})
    file(CREATE_LINK ${_hone_driver} ${_hone_stub_dir}/libcuda.so.1 SYMBOLIC)
  endif()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${HONE_CUDA_RUNTIME_DIRS} ${_hone_stub_dir})
endif()
# hone builds every candidate with g++ (-fopenmp) against the C library's headers.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "g++ (>= 4:12), libc6-dev")
# PyTorch-defined tasks (the oracle) and the HTML report's plots.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-torch, python3-numpy, libjs-chart.js")
# Compat (KernelBench ModelNew) candidates with load_inline extensions; the
# service's queue (hone worker needs a Redis, not necessarily on this host).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libtorch-dev, pybind11-dev, python3-dev, redis-server")
include(CPack)
