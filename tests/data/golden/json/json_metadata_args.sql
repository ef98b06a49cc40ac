-- trace: golden/json/json_metadata.json
-- process_sort_index, thread_sort_index and process_labels as Perfetto keys them: args of the
-- process or thread (process_sort_index_hint, thread_sort_index_hint, chrome.process_label[i]).
select 'process' as of, p.pid as id, a.flat_key, a.key, a.display_value
from process p join args a using (arg_set_id)
union all
select 'thread', t.tid, a.flat_key, a.key, a.display_value
from thread t join args a using (arg_set_id)
order by 1, 2, 4;
