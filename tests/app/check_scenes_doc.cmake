# docs/scenes.md is generated (`surge params --markdown`): fails when the committed page differs from what the
# parameter tables and docs/scenes.template.md give now, and says which command rewrites it.
# Run as: cmake -DSURGE=path/to/surge -DSOURCE_DIR=repo -DOUT=file -P check_scenes_doc.cmake
execute_process(COMMAND ${SURGE} params --markdown --template ${SOURCE_DIR}/docs/scenes.template.md
                OUTPUT_FILE ${OUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "surge params --markdown failed (exit ${status})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SOURCE_DIR}/docs/scenes.md RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "docs/scenes.md is out of date with the parameter tables or docs/scenes.template.md. "
                      "Regenerate it from the repository root: build/surge params --markdown > docs/scenes.md")
endif()
