/*
** This file holds the names Perfetto gives Chromium's process and thread types
** (ChromeProcessDescriptor.process_type, ChromeThreadDescriptor.thread_type): a readable name
** for the common types, else the type's enum value name from the schema (ChromeEnums in
** protos/chrome_track_event_ext.proto), so a new type still gets a name. The tables are keyed
** by enum value name, so no type number is written here.
*/
#include <string.h>

#include "pb/schema.h"
#include "processor/import/importer.h"

typedef struct type_name {
  const char *value, *name; /* enum value name, the name Perfetto shows */
} type_name;

static const type_name process_names[] = {
    {"PROCESS_BROWSER", "Browser"},
    {"PROCESS_RENDERER", "Renderer"},
    {"PROCESS_UTILITY", "Utility"},
    {"PROCESS_ZYGOTE", "SandboxHelper"},
    {"PROCESS_GPU", "Gpu"},
    {"PROCESS_PPAPI_PLUGIN", "PpapiPlugin"},
    {"PROCESS_PPAPI_BROKER", "PpapiBroker"},
    {"PROCESS_SERVICE_NETWORK", "Service: network.mojom.NetworkService"},
    {"PROCESS_SERVICE_TRACING", "Service: tracing.mojom.TracingService"},
    {"PROCESS_SERVICE_STORAGE", "Service: storage.mojom.StorageService"},
    {"PROCESS_SERVICE_AUDIO", "Service: audio.mojom.AudioService"},
    {"PROCESS_SERVICE_DATA_DECODER", "Service: data_decoder.mojom.DataDecoderService"},
    {"PROCESS_SERVICE_UTIL_WIN", "Service: chrome.mojom.UtilWin"},
    {"PROCESS_SERVICE_PROXY_RESOLVER", "Service: proxy_resolver.mojom.ProxyResolverFactory"},
    {"PROCESS_SERVICE_CDM", "Service: media.mojom.CdmServiceBroker"},
    {"PROCESS_SERVICE_MEDIA_FOUNDATION", "Service: media.mojom.MediaFoundationServiceBroker"},
    {"PROCESS_SERVICE_VIDEO_CAPTURE", "Service: video_capture.mojom.VideoCaptureService"},
    {"PROCESS_SERVICE_UNZIPPER", "Service: unzip.mojom.Unzipper"},
    {"PROCESS_SERVICE_MIRRORING", "Service: mirroring.mojom.MirroringService"},
    {"PROCESS_SERVICE_FILEPATCHER", "Service: patch.mojom.FilePatcher"},
    {"PROCESS_SERVICE_TTS", "Service: chromeos.tts.mojom.TtsService"},
    {"PROCESS_SERVICE_PRINTING", "Service: printing.mojom.PrintingService"},
    {"PROCESS_SERVICE_QUARANTINE", "Service: quarantine.mojom.Quarantine"},
    {"PROCESS_SERVICE_CROS_LOCALSEARCH",
     "Service: chromeos.local_search_service.mojom.LocalSearchService"},
    {"PROCESS_SERVICE_CROS_ASSISTANT_AUDIO_DECODER",
     "Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory"},
    {"PROCESS_SERVICE_FILEUTIL", "Service: chrome.mojom.FileUtilService"},
    {"PROCESS_SERVICE_PRINTCOMPOSITOR", "Service: printing.mojom.PrintCompositor"},
    {"PROCESS_SERVICE_PAINTPREVIEW",
     "Service: paint_preview.mojom.PaintPreviewCompositorCollection"},
    {"PROCESS_SERVICE_SPEECHRECOGNITION", "Service: media.mojom.SpeechRecognitionService"},
    {"PROCESS_SERVICE_XRDEVICE", "Service: device.mojom.XRDeviceService"},
    {"PROCESS_SERVICE_READICON", "Service: chrome.mojom.UtilReadIcon"},
    {"PROCESS_SERVICE_LANGUAGEDETECTION",
     "Service: language_detection.mojom.LanguageDetectionService"},
    {"PROCESS_SERVICE_SHARING", "Service: sharing.mojom.Sharing"},
    {"PROCESS_SERVICE_MEDIAPARSER", "Service: chrome.mojom.MediaParserFactory"},
    {"PROCESS_SERVICE_QRCODEGENERATOR", "Service: qrcode_generator.mojom.QRCodeService"},
    {"PROCESS_SERVICE_PROFILEIMPORT", "Service: chrome.mojom.ProfileImport"},
    {"PROCESS_SERVICE_IME", "Service: chromeos.ime.mojom.ImeService"},
    {"PROCESS_SERVICE_RECORDING", "Service: recording.mojom.RecordingService"},
    {"PROCESS_SERVICE_SHAPEDETECTION", "Service: shape_detection.mojom.ShapeDetectionService"},
    {"PROCESS_RENDERER_EXTENSION", "Extension Renderer"},
};

static const type_name thread_names[] = {
    {"THREAD_MAIN", "CrProcessMain"},
    {"THREAD_IO", "ChromeIOThread"},
    {"THREAD_NETWORK_SERVICE", "NetworkService"},
    {"THREAD_POOL_BG_WORKER", "ThreadPoolBackgroundWorker&"},
    {"THREAD_POOL_FG_WORKER", "ThreadPoolForegroundWorker&"},
    {"THREAD_POOL_BG_BLOCKING", "ThreadPoolSingleThreadBackgroundBlocking&"},
    {"THREAD_POOL_FG_BLOCKING", "ThreadPoolSingleThreadForegroundBlocking&"},
    {"THREAD_POOL_SERVICE", "ThreadPoolService"},
    {"THREAD_COMPOSITOR", "Compositor"},
    {"THREAD_VIZ_COMPOSITOR", "VizCompositorThread"},
    {"THREAD_COMPOSITOR_WORKER", "CompositorTileWorker&"},
    {"THREAD_SERVICE_WORKER", "ServiceWorkerThread&"},
    {"THREAD_MEMORY_INFRA", "MemoryInfra"},
    {"THREAD_SAMPLING_PROFILER", "StackSamplingProfiler"},
    {"THREAD_BROWSER_MAIN", "CrBrowserMain"},
    {"THREAD_RENDERER_MAIN", "CrRendererMain"},
    {"THREAD_CHILD_IO", "Chrome_ChildIOThread"},
    {"THREAD_BROWSER_IO", "Chrome_IOThread"},
    {"THREAD_UTILITY_MAIN", "CrUtilityMain"},
    {"THREAD_GPU_MAIN", "CrGpuMain"},
    {"THREAD_CACHE_BLOCKFILE", "CacheThread_BlockFile"},
    {"THREAD_MEDIA", "Media"},
    {"THREAD_AUDIO_OUTPUTDEVICE", "AudioOutputDevice"},
    {"THREAD_GPU_MEMORY", "GpuMemoryThread"},
    {"THREAD_GPU_VSYNC", "GpuVSyncThread"},
    {"THREAD_DXA_VIDEODECODER", "DXVAVideoDecoderThread"},
    {"THREAD_BROWSER_WATCHDOG", "BrowserWatchdog"},
    {"THREAD_WEBRTC_NETWORK", "WebRTC_Network"},
    {"THREAD_WINDOW_OWNER", "Window owner thread"},
    {"THREAD_WEBRTC_SIGNALING", "WebRTC_Signaling"},
    {"THREAD_PPAPI_MAIN", "CrPPAPIMain"},
    {"THREAD_GPU_WATCHDOG", "GpuWatchdog"},
    {"THREAD_SWAPPER", "swapper"},
    {"THREAD_GAMEPAD_POLLING", "Gamepad polling thread"},
    {"THREAD_AUDIO_INPUTDEVICE", "AudioInputDevice"},
    {"THREAD_WEBRTC_WORKER", "WebRTC_Worker"},
    {"THREAD_WEBCRYPTO", "WebCrypto"},
    {"THREAD_DATABASE", "Database thread"},
    {"THREAD_PROXYRESOLVER", "Proxy Resolver"},
    {"THREAD_DEVTOOLSADB", "Chrome_DevToolsADBThread"},
    {"THREAD_NETWORKCONFIGWATCHER", "NetworkConfigWatcher"},
    {"THREAD_WASAPI_RENDER", "wasapi_render_thread"},
    {"THREAD_LOADER_LOCK_SAMPLER", "LoaderLockSampler"},
    {"THREAD_COMPOSITOR_GPU", "CompositorGpuThread"},
    {"THREAD_BROWSER_VSYNC", "VSyncThread"},
};

/* The name of `type` in enum `enum_name` ("ChromeEnums.ProcessType"), 0 for none (unspecified
** or unknown types). */
static uint32_t type_name_id(trak_importer *imp, const char *enum_name, const type_name *table,
                             size_t n, int32_t type) {
  const trak_pb_enum_desc *e = trak__schema_enum(enum_name);
  const char *value = e ? trak__schema_enum_name(e, type) : NULL;
  if (!value || type == 0) return 0; /* *_UNSPECIFIED: no name */
  const char *name = value;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(table[i].value, value)) name = table[i].name;
  return trak__strpool_intern(&imp->tables->strings, name, strlen(name));
}

uint32_t trak__chrome_process_name(trak_importer *imp, int32_t type) {
  return type_name_id(imp, "ChromeEnums.ProcessType", process_names,
                      sizeof process_names / sizeof *process_names, type);
}

uint32_t trak__chrome_thread_name(trak_importer *imp, int32_t type) {
  return type_name_id(imp, "ChromeEnums.ThreadType", thread_names,
                      sizeof thread_names / sizeof *thread_names, type);
}
