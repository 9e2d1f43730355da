# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[unit_test_hist]=] "/work/main/build/tests/test_hist")
set_tests_properties([=[unit_test_hist]=] PROPERTIES  ENVIRONMENT "FSMIX_SOURCE_DIR=/work/main;FSMIX_BIN=/work/main/build/src/fsmix" LABELS "unit" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;8;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[unit_test_pool]=] "/work/main/build/tests/test_pool")
set_tests_properties([=[unit_test_pool]=] PROPERTIES  ENVIRONMENT "FSMIX_SOURCE_DIR=/work/main;FSMIX_BIN=/work/main/build/src/fsmix" LABELS "unit" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;8;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[unit_test_stats]=] "/work/main/build/tests/test_stats")
set_tests_properties([=[unit_test_stats]=] PROPERTIES  ENVIRONMENT "FSMIX_SOURCE_DIR=/work/main;FSMIX_BIN=/work/main/build/src/fsmix" LABELS "unit" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;8;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[unit_test_tree]=] "/work/main/build/tests/test_tree")
set_tests_properties([=[unit_test_tree]=] PROPERTIES  ENVIRONMENT "FSMIX_SOURCE_DIR=/work/main;FSMIX_BIN=/work/main/build/src/fsmix" LABELS "unit" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;8;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[e2e_cli_check]=] "bash" "/work/main/tests/e2e/cli_check.sh")
set_tests_properties([=[e2e_cli_check]=] PROPERTIES  ENVIRONMENT "FSMIX_SOURCE_DIR=/work/main;FSMIX_BIN=/work/main/build/src/fsmix" LABELS "e2e" SKIP_RETURN_CODE "77" TIMEOUT "900" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;25;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[e2e_docs_current]=] "bash" "/work/main/tests/e2e/docs_current.sh")
set_tests_properties([=[e2e_docs_current]=] PROPERTIES  ENVIRONMENT "FSMIX_SOURCE_DIR=/work/main;FSMIX_BIN=/work/main/build/src/fsmix" LABELS "e2e" SKIP_RETURN_CODE "77" TIMEOUT "900" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;25;add_test;/work/main/tests/CMakeLists.txt;0;")
subdirs("fuzz")
