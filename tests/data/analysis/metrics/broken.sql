-- Test metric with an error on line 4.
CREATE TABLE broken_output AS SELECT 1 AS x;

SELECT no_such_column FROM slice;
