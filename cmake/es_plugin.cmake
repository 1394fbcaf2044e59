# The ES (Eager Style) graph-building API of actgrad's operators, for CANN 8.5.0 and later: CANN's gen_esb reads the
# operators' GE prototypes (the package's op_proto library, compiled from op_host/ with npu_op_code_gen's
# op_proto.cc) and writes C, C++ and Python functions, one per OpType; CANN's own CMake functions
# (include/ge/cmake/FindGenerateEsPackage.cmake: add_es_library_and_whl) compile them into libes_actgrad.so and package
# the Python side as the wheel es_actgrad, registered under the `ge.es.plugins` entry point as `actgrad`, so that
# `ge.es` lists it and `ge.es.actgrad.ActgradHardtanhGrad(...)` builds the GE node.
#
# Installed into the package (vendors/actgrad/):
#   op_api/lib/libes_actgrad.so       loaded by the Python functions by name: op_api/lib is on LD_LIBRARY_PATH once
#                                     the package's bin/set_env.bash is sourced
#   op_api/include/es_actgrad/        es_actgrad_ops.h (C++), es_actgrad_ops_c.h (C), one header pair per operator
#   op_api/python/es_actgrad-*.whl    pip install it where CANN's `ge` Python package is importable
# (The package installer copies only framework/, op_proto/, op_impl/ and op_api/.)
#
# Included from CMakeLists.txt after op_host/ has defined cust_op_proto (the GRAPH object library).
# ACTGRAD_ES_PLUGIN=OFF (build.sh --without-es-plugin) builds the package without it, e.g. on CANN before 8.5.0.

option(ACTGRAD_ES_PLUGIN "build the ES API of the operators (CANN 8.5.0 and later)" ON)
if(NOT ACTGRAD_ES_PLUGIN)
    message(STATUS "actgrad: ES plugin not built (ACTGRAD_ES_PLUGIN=OFF)")
    return()
endif()

set(_cann "${ASCEND_CANN_PACKAGE_PATH}")
set(_es_cmake_dir "${_cann}/include/ge/cmake")
set(_es_off_hint "ES (gen_esb and ${_es_cmake_dir}/FindGenerateEsPackage.cmake) first shipped with CANN 8.5.0. \
Install CANN 8.5.0 or later, or build the package without the ES API: bash build.sh --without-es-plugin \
(cmake -DACTGRAD_ES_PLUGIN=OFF).")
if(NOT EXISTS "${_es_cmake_dir}/FindGenerateEsPackage.cmake")
    message(FATAL_ERROR "actgrad ES plugin: the CANN at '${_cann}' has no ES code generator module. ${_es_off_hint}")
endif()
# the search CANN's module makes (PATH, then the toolkit's bin/ and <arch>-linux/bin/), done first for a clear error
find_program(ACTGRAD_GEN_ESB gen_esb HINTS "${_cann}/bin" "${_cann}/${CMAKE_SYSTEM_PROCESSOR}-linux/bin")
if(NOT ACTGRAD_GEN_ESB)
    message(FATAL_ERROR "actgrad ES plugin: gen_esb is neither on PATH nor in '${_cann}/bin'. ${_es_off_hint}")
endif()

list(APPEND CMAKE_MODULE_PATH "${_es_cmake_dir}")
find_package(GenerateEsPackage REQUIRED)
if(ASCEND_PYTHON_EXECUTABLE AND NOT Python3_EXECUTABLE)
    set(Python3_EXECUTABLE "${ASCEND_PYTHON_EXECUTABLE}")  # build the wheel with the package build's Python
endif()

# gen_esb loads every op_proto library under $ASCEND_OPP_PATH/op_proto/custom/. The package's own op_proto library
# is linked inside npu_op_package_add; this one is linked the same way from the same objects, into that layout
# (CANN 8.5.0's add_es_library_and_whl takes no OBJECT library).
set(_es_opp "${CMAKE_BINARY_DIR}/es_opp")
add_library(actgrad_es_proto SHARED $<TARGET_OBJECTS:cust_op_proto>)
target_link_libraries(actgrad_es_proto PRIVATE intf_pub $<IF:$<TARGET_EXISTS:cust_intf_pub>,cust_intf_pub,>
                                               cust_op_proto)
set_target_properties(actgrad_es_proto PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${_es_opp}/op_proto/custom")

set(_es_out "${CMAKE_BINARY_DIR}/es_actgrad")
add_es_library_and_whl(
    ES_LINKABLE_AND_ALL_TARGET es_actgrad  # module name "actgrad": es_actgrad_ops.{h,py}, ge.es.actgrad
    OPP_PROTO_TARGET actgrad_es_proto
    OUTPUT_PATH "${_es_out}"
)
add_custom_target(actgrad_es_plugin ALL)
add_dependencies(actgrad_es_plugin build_es_actgrad)  # generate, compile, package and copy into ${_es_out}

adapt_install_path(INPUT_PATH "packages/vendors/${vendor_name}/op_api" INPUT_TARGET ${package_name}
                   OUTPUT_PATH _op_api_dir)
install(FILES "${_es_out}/lib64/libes_actgrad.so" DESTINATION "${_op_api_dir}/lib")
install(DIRECTORY "${_es_out}/include/es_actgrad" DESTINATION "${_op_api_dir}/include")
install(DIRECTORY "${_es_out}/whl/" DESTINATION "${_op_api_dir}/python" FILES_MATCHING PATTERN "es_actgrad-*.whl")
