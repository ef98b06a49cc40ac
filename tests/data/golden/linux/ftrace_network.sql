-- Networking events: netif_receive_skb / net_dev_xmit (rc 0 only) sum each interface's bytes
-- in timestamp order, across CPUs, as KB (rounded down) on "<dev> Received KB" / "<dev>
-- Transmitted KB" with args cpu and len; kfree_skb counts IP and IPv6 frees on "Kfree Skb IP
-- Prot" (arg protocol); napi_gro_receive_entry/exit a slice on "Napi Gro Cpu N" (args len,
-- ret); inet_sock_set_state a TCP socket's states as slices on its "TCP stream#N" (not UDP);
-- tcp_retransmit_skb a zero-length slice on "TCP Retransmit Skb". The same as
-- trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value, extract_arg(c.arg_set_id, 'cpu') AS cpu, extract_arg(c.arg_set_id, 'len') AS len, extract_arg(c.arg_set_id, 'protocol') AS protocol FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
SELECT s.ts, s.dur, s.name, s.category, t.name AS track, t.type, extract_arg(s.arg_set_id, 'len') AS len, extract_arg(s.arg_set_id, 'ret') AS ret FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
