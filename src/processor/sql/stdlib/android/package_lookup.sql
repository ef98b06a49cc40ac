-- android.package_lookup: android_package_lookup(uid), the name of the package (or of the
-- system user) a uid belongs to, as Perfetto's function picks it.

-- Android's fixed uids below 10000 and the names Perfetto gives them
-- (system/core/libcutils/include/private/android_filesystem_config.h).
CREATE PERFETTO TABLE _android_system_uid_names(
  -- The uid within one Android user (uid % 100000).
  app_id LONG,
  -- Its AID_* name.
  name STRING
) AS
WITH names(app_id, name) AS (VALUES
  (0, 'AID_ROOT'), (1000, 'AID_SYSTEM_USER'), (1001, 'AID_RADIO'), (1002, 'AID_BLUETOOTH'),
  (1003, 'AID_GRAPHICS'), (1004, 'AID_INPUT'), (1005, 'AID_AUDIO'), (1006, 'AID_CAMERA'),
  (1007, 'AID_LOG'), (1008, 'AID_COMPASS'), (1009, 'AID_MOUNT'), (1010, 'AID_WIFI'),
  (1011, 'AID_ADB'), (1012, 'AID_INSTALL'), (1013, 'AID_MEDIA'), (1014, 'AID_DHCP'),
  (1015, 'AID_SDCARD_RW'), (1016, 'AID_VPN'), (1017, 'AID_KEYSTORE'), (1018, 'AID_USB'),
  (1019, 'AID_DRM'), (1020, 'AID_MDNSR'), (1021, 'AID_GPS'), (1022, 'AID_UNUSED1'),
  (1023, 'AID_MEDIA_RW'), (1024, 'AID_MTP'), (1025, 'AID_UNUSED2'), (1026, 'AID_DRMRPC'),
  (1027, 'AID_NFC'), (1028, 'AID_SDCARD_R'), (1029, 'AID_CLAT'), (1030, 'AID_LOOP_RADIO'),
  (1031, 'AID_MEDIA_DRM'), (1032, 'AID_PACKAGE_INFO'), (1033, 'AID_SDCARD_PICS'),
  (1034, 'AID_SDCARD_AV'), (1035, 'AID_SDCARD_ALL'), (1036, 'AID_LOGD'),
  (1037, 'AID_SHARED_RELRO'), (1038, 'AID_DBUS'), (1039, 'AID_TLSDATE'), (1040, 'AID_MEDIA_EX'),
  (1041, 'AID_AUDIOSERVER'), (1042, 'AID_METRICS_COLL'), (1043, 'AID_METRICSD'),
  (1044, 'AID_WEBSERV'), (1045, 'AID_DEBUGGERD'), (1046, 'AID_MEDIA_CODEC'),
  (1047, 'AID_CAMERASERVER'), (1048, 'AID_FIREWALL'), (1049, 'AID_TRUNKS'), (1050, 'AID_NVRAM'),
  (1051, 'AID_DNS'), (1052, 'AID_DNS_TETHER'), (1053, 'AID_WEBVIEW_ZYGOTE'),
  (1054, 'AID_VEHICLE_NETWORK'), (1055, 'AID_MEDIA_AUDIO'), (1056, 'AID_MEDIA_VIDEO'),
  (1057, 'AID_MEDIA_IMAGE'), (1058, 'AID_TOMBSTONED'), (1059, 'AID_MEDIA_OBB'),
  (1060, 'AID_ESE'), (1061, 'AID_OTA_UPDATE'), (1062, 'AID_AUTOMOTIVE_EVS'),
  (1063, 'AID_LOWPAN'), (1064, 'AID_HSM'), (1065, 'AID_RESERVED_DISK'), (1066, 'AID_STATSD'),
  (1067, 'AID_INCIDENTD'), (1068, 'AID_SECURE_ELEMENT'), (1069, 'AID_LMKD'), (1070, 'AID_LLKD'),
  (1071, 'AID_IORAPD'), (1072, 'AID_GPU_SERVICE'), (1073, 'AID_NETWORK_STACK'),
  (1074, 'AID_GSID'), (1075, 'AID_FSVERITY_CERT'), (1076, 'AID_CREDSTORE'),
  (1077, 'AID_EXTERNAL_STORAGE'), (1078, 'AID_EXT_DATA_RW'), (1079, 'AID_EXT_OBB_RW'),
  (1080, 'AID_CONTEXT_HUB'), (1081, 'AID_VIRTMANAGER'), (1082, 'AID_ARTD'), (1083, 'AID_UWB'),
  (1084, 'AID_THREAD_NETWORK'), (1085, 'AID_DICED'), (1086, 'AID_DMESGD'),
  (1087, 'AID_JC_WEAVER'), (1088, 'AID_JC_STRONGBOX'), (1089, 'AID_JC_IDENTITYCRED'),
  (1090, 'AID_SDK_SANDBOX'), (1091, 'AID_SECURITY_LOG_WRITER'), (1092, 'AID_PRNG_SEEDER'),
  (1093, 'AID_UPROBESTATS'), (2000, 'AID_SHELL'), (2001, 'AID_CACHE'), (2002, 'AID_DIAG'),
  (9999, 'AID_NOBODY')
)
SELECT app_id, name FROM names;

-- The package name for a uid: of the package_list rows with the uid's app id (uid % 100000,
-- for ids from 10000) the real GMS package first, then any but content providers, then those,
-- the first listed of a kind; otherwise the AID_* name of a system uid, SHARED_GID for app ids
-- 50000 to 59999, ISOLATED_UID from 90000, and else 'uid=<uid>'.
CREATE PERFETTO FUNCTION android_package_lookup(
  -- The uid to look up.
  uid LONG
)
-- The best-matching package name, or NULL if no package matches.
RETURNS STRING AS
SELECT CASE
  WHEN $uid IS NULL THEN NULL
  ELSE coalesce(
    (SELECT package_name FROM package_list
     WHERE ($uid & 4294967295) % 100000 >= 10000 AND uid = ($uid & 4294967295) % 100000
     ORDER BY CASE
       WHEN package_name GLOB 'com.android.providers.*' THEN 0
       WHEN package_name = 'com.google.android.gms' THEN 2
       ELSE 1 END DESC, id
     LIMIT 1),
    (SELECT name FROM _android_system_uid_names WHERE app_id = ($uid & 4294967295) % 100000),
    CASE
      WHEN ($uid & 4294967295) % 100000 BETWEEN 50000 AND 59999 THEN 'SHARED_GID'
      WHEN ($uid & 4294967295) % 100000 >= 90000 THEN 'ISOLATED_UID'
      ELSE 'uid=' || ($uid & 4294967295)
    END)
END;
