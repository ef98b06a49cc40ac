-- trace: golden/sql/sorting.pbtxt
-- Constraints the virtual tables narrow themselves (id, sorted ts, equality on integer and
-- string columns) and unusual ones they leave to SQLite: results must be SQLite's semantics.
SELECT id FROM slice WHERE id = '3';
SELECT id FROM slice WHERE ts > 99.5 ORDER BY id;
SELECT id FROM slice WHERE ts = 100;
SELECT id FROM slice WHERE ts >= 100 AND ts <= 200;
SELECT id FROM slice WHERE ts < 100;
SELECT COUNT(*) AS n FROM slice WHERE name = 'nope';
SELECT id FROM slice WHERE name = 'b';
SELECT id FROM slice WHERE parent_id = 1;
SELECT id FROM slice WHERE parent_id IS NULL ORDER BY id;
SELECT id FROM slice WHERE track_id = 1 AND depth = 0 ORDER BY id;
SELECT id FROM slice WHERE ts = NULL;
SELECT id FROM slice WHERE id IN (1, 3);
SELECT id FROM slice WHERE id > 2 ORDER BY ts DESC;
SELECT s.id, p.id AS parent FROM slice s JOIN slice p ON s.parent_id = p.id ORDER BY s.id;
SELECT COUNT(*) AS n FROM slice WHERE parent_id = 4294967295;
SELECT COUNT(*) AS n FROM slice WHERE id = -1 OR id = 99999999999;
SELECT id FROM slice WHERE ts BETWEEN 100 AND 250 AND id < 4 ORDER BY ts;
