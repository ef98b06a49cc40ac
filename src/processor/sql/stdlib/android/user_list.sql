-- android.user_list: the Android users of the trace (not Linux users: on Android each app has
-- a Linux uid of its own).

-- The Android users, from the android.user_list data source. trak does not import that data
-- source's packets yet, so the view has no rows.
CREATE PERFETTO VIEW android_user_list(
  -- The Android user id, as android_process_metadata.user_id gives it.
  android_user_id LONG,
  -- The user's type as the system names it (HEADLESS, SECONDARY, GUEST, ...).
  type STRING
) AS
SELECT CAST(NULL AS INTEGER) AS android_user_id, CAST(NULL AS TEXT) AS type WHERE 0;
