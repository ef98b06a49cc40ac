-- Annotation slices past int64's end: 'far' starts 7 ns before INT64_MAX and lasts 100 ns,
-- 'inside' starts within it. The annotated copy ends 'far' at INT64_MAX, 'inside' its child.
CREATE VIEW far_end_annotations AS
SELECT 'slice' AS track_type, 'Far' AS track_name, 9223372036854775800 AS ts, 100 AS dur,
       'far' AS slice_name
UNION ALL SELECT 'slice', 'Far', 9223372036854775805, 1, 'inside';
