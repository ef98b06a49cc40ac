-- trace: golden/sql/sorting.pbtxt
-- GROUP BY on one column is answered by the virtual table (rows come grouped, no sorter); the
-- groups must still come in the order SQLite's sorter gives: NULL first, then ascending.
SELECT name, COUNT(*) AS n FROM slice GROUP BY name;
SELECT track_id, COUNT(*) AS n, MIN(ts) AS first FROM slice GROUP BY track_id;
SELECT parent_id, COUNT(*) AS n FROM slice GROUP BY parent_id;
SELECT name, COUNT(*) AS n FROM slice WHERE track_id = 1 GROUP BY name;
SELECT category, COUNT(*) AS n FROM slice GROUP BY category;
SELECT name, COUNT(*) AS n FROM slice WHERE ts >= 100 GROUP BY name ORDER BY n DESC, name;
