/*
** The analysis content that ships inside libtrak_processor (docs/analysis.md): the default
** slice description rules (SliceDescriptionRules text, protos/analysis_rules.proto) and the
** built-in metrics (SQL in the dialect of metrics.c: INCLUDE, PARAM ... DEFAULT, {{key}}).
** Built-in metrics read only the trace's own slices (annotation_track rows are left out) so
** that running them after other metrics gives the same numbers.
*/
#include "processor/analysis/analysis.h"

const char trak__builtin_rules[] =
    "rule {\n"
    "  name: \"inflate\"\n"
    "  description: \"Constructing a View hierarchy from pre-processed XML via "
    "LayoutInflater#layout. This includes constructing all of the View objects in the "
    "hierarchy, and applying styled attributes.\"\n"
    "  doc_link: \"https://developer.android.com/reference/android/view/"
    "layoutinflater#inflate(int,%20android.view.viewgroup)\"\n"
    "}\n"
    "rule {\n"
    "  name: \"measure\"\n"
    "  description: \"Measuring the size of views: each View#measure call works out how big a "
    "view wants to be given its parent's constraints.\"\n"
    "  doc_link: "
    "\"https://developer.android.com/reference/android/view/View#measure(int,%20int)\"\n"
    "}\n"
    "rule {\n"
    "  name: \"layout\"\n"
    "  description: \"Positioning views: each View#layout call assigns a size and position to a "
    "view and its children.\"\n"
    "  doc_link: \"https://developer.android.com/reference/android/view/"
    "View#layout(int,%20int,%20int,%20int)\"\n"
    "}\n"
    "rule {\n"
    "  name: \"draw\"\n"
    "  ancestor: \"Choreographer#doFrame*\"\n"
    "  description: \"Recording the drawing commands of the view hierarchy for this frame; the "
    "RenderThread turns them into GPU work.\"\n"
    "  doc_link: \"https://developer.android.com/topic/performance/rendering\"\n"
    "}\n"
    "rule {\n"
    "  name: \"Choreographer#doFrame*\"\n"
    "  description: \"The UI thread producing one frame: input, animation, measure, layout and "
    "draw. Frames longer than the display's refresh interval are janky.\"\n"
    "  doc_link: \"https://developer.android.com/topic/performance/vitals/render\"\n"
    "}\n"
    "rule {\n"
    "  name: \"binder transaction*\"\n"
    "  description: \"A synchronous call to another process over Binder; this thread waits for "
    "the reply.\"\n"
    "  doc_link: \"https://source.android.com/docs/core/architecture/hidl/binder-ipc\"\n"
    "}\n"
    "rule {\n"
    "  name: \"Lock contention on*\"\n"
    "  description: \"This thread is blocked waiting for a monitor lock held by another "
    "thread.\"\n"
    "  doc_link: \"https://developer.android.com/topic/performance/vitals/anr\"\n"
    "}\n"
    "rule {\n"
    "  name: \"GC: *\"\n"
    "  description: \"A garbage collection of the managed heap.\"\n"
    "  doc_link: \"https://developer.android.com/topic/performance/memory\"\n"
    "}\n";

/* Slices of the trace itself, not of annotation tracks. */
#define TRACE_SLICE "(SELECT * FROM slice WHERE track_id NOT IN (SELECT id FROM annotation_track))"

/* Per slice name: count, total, mean, max and nearest-rank percentiles of dur. A rank r is
** within the first ceil(q * n) exactly when (r - 1) * 100 < q100 * n. */
static const char slice_stats_sql[] =
    "-- Duration statistics per slice name (complete slices only).\n"
    "CREATE TABLE slice_stats_output AS\n"
    "WITH d AS (\n"
    "  SELECT name, dur,\n"
    "         row_number() OVER (PARTITION BY name ORDER BY dur) AS rn,\n"
    "         count(*) OVER (PARTITION BY name) AS cnt\n"
    "  FROM " TRACE_SLICE " WHERE dur >= 0 AND name IS NOT NULL)\n"
    "SELECT name, count(*) AS count, sum(dur) AS total_dur, avg(dur) AS mean_dur,\n"
    "       max(dur) AS max_dur,\n"
    "       max(CASE WHEN (rn - 1) * 100 < 50 * cnt THEN dur END) AS p50_dur,\n"
    "       max(CASE WHEN (rn - 1) * 100 < 90 * cnt THEN dur END) AS p90_dur,\n"
    "       max(CASE WHEN (rn - 1) * 100 < 99 * cnt THEN dur END) AS p99_dur\n"
    "FROM d GROUP BY name ORDER BY total_dur DESC, name;\n";

static const char longest_slices_sql[] =
    "-- The longest slices of each thread.\n"
    "PARAM top DEFAULT 3;\n"
    "CREATE TABLE longest_slices_output AS\n"
    "SELECT utid, tid, thread_name, rank, slice_id, name, ts, dur FROM (\n"
    "  SELECT t.utid, t.tid, t.name AS thread_name, s.id AS slice_id, s.name, s.ts, s.dur,\n"
    "         row_number() OVER (PARTITION BY t.utid ORDER BY s.dur DESC, s.id) AS rank\n"
    "  FROM " TRACE_SLICE " s JOIN thread_track tt ON s.track_id = tt.id\n"
    "  JOIN thread t USING (utid) WHERE s.dur > 0)\n"
    "WHERE rank <= {{top}} ORDER BY utid, rank;\n";

static const char counter_stats_sql[] =
    "-- Statistics of every counter track of the trace.\n"
    "CREATE TABLE counter_stats_output AS\n"
    "SELECT ct.id AS track_id, ct.name, count(c.id) AS count, min(c.value) AS min_value,\n"
    "       max(c.value) AS max_value, avg(c.value) AS mean_value, min(c.ts) AS first_ts,\n"
    "       max(c.ts) AS last_ts\n"
    "FROM counter_track ct JOIN counter c ON c.track_id = ct.id\n"
    "GROUP BY ct.id ORDER BY ct.id;\n";

static const char flow_latency_sql[] =
    "-- Latency of flows (start of the incoming slice minus start of the outgoing one), per\n"
    "-- pair of slice names.\n"
    "CREATE TABLE flow_latency_output AS\n"
    "SELECT so.name AS from_name, si.name AS to_name, count(*) AS count,\n"
    "       min(si.ts - so.ts) AS min_latency, avg(si.ts - so.ts) AS mean_latency,\n"
    "       max(si.ts - so.ts) AS max_latency\n"
    "FROM flow f JOIN slice so ON f.slice_out = so.id JOIN slice si ON f.slice_in = si.id\n"
    "GROUP BY so.name, si.name ORDER BY max_latency DESC, from_name, to_name;\n";

static const char long_slices_sql[] =
    "-- Slices longer than a threshold, as annotations on a per-thread track and alerts:\n"
    "-- a warning past threshold_ns, an error past error_ns.\n"
    "PARAM threshold_ns DEFAULT 16000000;\n"
    "PARAM error_ns DEFAULT 100000000;\n"
    "CREATE TABLE long_slices AS\n"
    "SELECT s.id AS slice_id, s.ts, s.dur, s.name, tt.utid, t.upid\n"
    "FROM " TRACE_SLICE " s LEFT JOIN thread_track tt ON s.track_id = tt.id\n"
    "LEFT JOIN thread t USING (utid)\n"
    "WHERE s.dur > {{threshold_ns}};\n"
    "CREATE TABLE long_slices_output AS\n"
    "SELECT name, count(*) AS count, max(dur) AS max_dur FROM long_slices\n"
    "GROUP BY name ORDER BY max_dur DESC, name;\n"
    "CREATE VIEW long_slices_annotations AS\n"
    "SELECT 'slice' AS track_type, 'Long slices' AS track_name, ts, dur, name AS slice_name,\n"
    "       NULL AS value, utid, slice_id AS source_slice_id,\n"
    "       CASE WHEN dur > {{error_ns}} THEN 'error' ELSE 'warning' END AS alert_type,\n"
    "       printf('%s took %d ns (over %d ns)', name, dur,\n"
    "              CASE WHEN dur > {{error_ns}} THEN {{error_ns}} ELSE {{threshold_ns}} END)\n"
    "         AS alert_message\n"
    "FROM long_slices;\n";

/* slices.time_in_state summed per slice name, in sched.states' words (an IO sleep apart). */
static const char slice_time_in_state_sql[] =
    "-- Time in each thread state per slice name: for the thread slices whose thread\n"
    "-- scheduling data covers, how long the slices of each name spent in each state, in how\n"
    "-- many of them, and the share of the name's covered time.\n"
    "INCLUDE PERFETTO MODULE slices.time_in_state;\n"
    "INCLUDE PERFETTO MODULE sched.states;\n"
    "CREATE TABLE slice_time_in_state_output AS\n"
    "WITH s AS (\n"
    "  SELECT name, id, sched_state_io_to_human_readable_string(state, io_wait) AS state, dur\n"
    "  FROM thread_slice_time_in_state\n"
    "  WHERE id IN (SELECT id FROM " TRACE_SLICE "))\n"
    "SELECT name, state, count(DISTINCT id) AS slice_count, sum(dur) AS dur,\n"
    "       round(100.0 * sum(dur) / sum(sum(dur)) OVER (PARTITION BY name), 2) AS percent\n"
    "FROM s GROUP BY name, state ORDER BY name, dur DESC, state;\n";

const trak_builtin_metric trak__builtin_metrics[] = {
    {"slice_stats", slice_stats_sql},
    {"longest_slices", longest_slices_sql},
    {"counter_stats", counter_stats_sql},
    {"flow_latency", flow_latency_sql},
    {"long_slices", long_slices_sql},
    {"slice_time_in_state", slice_time_in_state_sql},
    {NULL, NULL},
};
