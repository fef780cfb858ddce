# A source archive (`git archive`, as a release tarball is made) knows the commit it came from: the
# archive's cmake/source-commit.txt has it (export-subst), and cmake/SurgeCommit.cmake reads it there when
# there is no git repository. Outside a git clone there is nothing to archive, and it says so.
# Run as: cmake -DSOURCE_DIR=repo -DWORK=scratch -P check_archive_commit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status ERROR_QUIET)
if(NOT status EQUAL 0)
  message(STATUS "not a git clone: nothing to archive")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND git archive --format=tar -o ${WORK}/source.tar HEAD cmake WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "git archive failed")
endif()
file(ARCHIVE_EXTRACT INPUT ${WORK}/source.tar DESTINATION ${WORK}/source)
execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK}/source -P ${WORK}/source/cmake/SurgeCommit.cmake
                ERROR_VARIABLE printed ERROR_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT printed STREQUAL head)
  message(FATAL_ERROR "the archive of ${head} reports commit '${printed}'")
endif()
