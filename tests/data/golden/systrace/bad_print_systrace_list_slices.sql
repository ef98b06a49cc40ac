-- trace: systrace/bad_print.systrace
-- Perfetto's diff test parser/atrace/tests_error_handling.py:test_bad_print_systrace_list_slices
-- (expected output copied from it): an event whose arguments run over three lines does not
-- stop the lines after it; the marker pair makes one slice.
SELECT ts, dur, name
FROM slice;
