CREATE VIEW bad_alert_output AS SELECT 1 AS x;
CREATE VIEW bad_alert_annotations AS
SELECT 'slice' AS track_type, 'X' AS track_name, 0 AS ts, 1 AS dur, 'x' AS slice_name,
       'fatal' AS alert_type;
