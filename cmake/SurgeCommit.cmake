# The commit a binary was built from, for `surge --version` and benchmark JSON: from git in a clone; from
# cmake/source-commit.txt in a source archive made by `git archive` (its export-subst attribute, set in
# .gitattributes, writes the commit into that file); else "unknown".
# Also runs as a script (cmake -DSOURCE_DIR=... -P cmake/SurgeCommit.cmake), which prints the commit: the
# test that a source archive knows its commit.
function(surge_source_commit source_dir out_var)
  # Only the source tree's own repository counts, not one an unpacked archive happens to sit inside.
  execute_process(COMMAND git rev-parse --show-toplevel WORKING_DIRECTORY ${source_dir}
                  OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_failed)
  file(REAL_PATH "${source_dir}" source_real)
  if(NOT git_failed AND top)
    file(REAL_PATH "${top}" top)
  endif()
  set(commit "")
  if(NOT git_failed AND top STREQUAL source_real)
    execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${source_dir}
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT commit)
    set(commit "unknown")
    if(EXISTS ${source_dir}/cmake/source-commit.txt)
      file(READ ${source_dir}/cmake/source-commit.txt archived)
      string(STRIP "${archived}" archived)
      # Outside an archive the file still holds the placeholder.
      if(archived MATCHES "^[0-9a-f]+$")
        string(SUBSTRING "${archived}" 0 12 commit)
      endif()
    endif()
  endif()
  set(${out_var} "${commit}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  surge_source_commit("${SOURCE_DIR}" commit)
  message("${commit}")
endif()
