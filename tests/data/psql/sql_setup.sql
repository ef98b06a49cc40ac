-- What the SQL set-up (trak__sql_ready) builds, compared by tests/cli/perfetto_sql.sh with
-- sql_setup.expected: every schema entry in creation order with its text, every column of every
-- table and view (the views' SELECTs compile), trak's functions and modules, the schema version,
-- and a few answers of the prelude's views and functions.
SELECT rowid, type, name, tbl_name, rootpage, sql FROM sqlite_schema ORDER BY rowid;
SELECT m.name AS relation, c.cid, c.name, c.type, c."notnull", c.dflt_value, c.pk
FROM sqlite_schema AS m, pragma_table_info(m.name) AS c
ORDER BY m.rowid, c.cid;
SELECT name, type, enc, narg, flags FROM pragma_function_list WHERE builtin = 0
ORDER BY name, narg, enc;
SELECT name FROM pragma_module_list
WHERE name NOT IN ('dbstat', 'fts3', 'fts3tokenize', 'fts4', 'fts4aux', 'fts5', 'fts5vocab',
                   'json_each', 'json_tree', 'pragma_module_list', 'rtree', 'rtree_i32',
                   'sqlite_stmt', 'geopoly', 'carray', 'zipfile', 'sqlite_dbpage', 'bytecode',
                   'tables_used', 'completion', 'generate_series')
ORDER BY name;
PRAGMA schema_version;
SELECT trace_start(), trace_end(), trace_dur();
SELECT * FROM trace_bounds;
SELECT extract_metadata('trace_type') AS trace_type;
SELECT COUNT(*) AS slices, SUM(dur) AS dur FROM slices;
SELECT COUNT(*) AS tracks FROM track;
SELECT thread_track.name, COUNT(*) FROM thread_track JOIN slice ON slice.track_id = thread_track.id
GROUP BY thread_track.name ORDER BY thread_track.name;
SELECT COUNT(*) AS stats FROM stats;
SELECT * FROM metadata ORDER BY id;
SELECT COUNT(*) FROM stack_sample;
PRAGMA writable_schema;
PRAGMA integrity_check;
DROP VIEW raw;
CREATE VIEW raw2 AS SELECT COUNT(*) AS n FROM ftrace_event;
SELECT * FROM raw2;
SELECT name FROM sqlite_schema WHERE name LIKE 'raw%' ORDER BY name;
