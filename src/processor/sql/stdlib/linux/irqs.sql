-- linux.irqs: the interrupt slices of ftrace's irq_handler_* (tracks of type 'cpu_irq') and
-- softirq_* events (type 'cpu_softirq'), and the IRQ number to name mapping (InterruptInfo
-- packets of linux.system_info with irq_names).

-- Hard IRQs: one row per irq_handler_entry/exit pair.
CREATE PERFETTO VIEW linux_hard_irqs(
  -- Start of the IRQ.
  ts TIMESTAMP,
  -- Its duration.
  dur DURATION,
  -- Its name ("IRQ (name)").
  name STRING,
  -- Its slice.
  id JOINID(slice.id),
  -- The IRQ it preempted, if any.
  parent_id JOINID(slice.id)
) AS
SELECT s.ts, s.dur, s.name, s.id, s.parent_id
FROM slices AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.type = 'cpu_irq';

-- Soft IRQs: one row per softirq_entry/exit pair.
CREATE PERFETTO VIEW linux_soft_irqs(
  -- Start of the soft IRQ.
  ts TIMESTAMP,
  -- Its duration.
  dur DURATION,
  -- Its name (the action: "TIMER", "RCU", ...).
  name STRING,
  -- Its slice.
  id JOINID(slice.id)
) AS
SELECT s.ts, s.dur, s.name, s.id
FROM slices AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.type = 'cpu_softirq';

-- Hard IRQs then soft IRQs (whose parent_id is NULL).
CREATE PERFETTO VIEW linux_irqs(
  -- Start of the IRQ.
  ts TIMESTAMP,
  -- Its duration.
  dur DURATION,
  -- Its name.
  name STRING,
  -- Its slice.
  id JOINID(slice.id),
  -- The hard IRQ it preempted (NULL for soft IRQs).
  parent_id JOINID(slice.id),
  -- 1 for a soft IRQ, 0 for a hard one.
  is_soft_irq BOOL
) AS
SELECT ts, dur, name, id, parent_id, 0 AS is_soft_irq FROM linux_hard_irqs
UNION ALL
SELECT ts, dur, name, id, NULL AS parent_id, 1 AS is_soft_irq FROM linux_soft_irqs;

-- IRQ numbers and their names, per machine.
CREATE PERFETTO VIEW linux_interrupt_mapping(
  -- Row id.
  id ID,
  -- The IRQ number.
  irq_id LONG,
  -- The IRQ's name.
  name STRING,
  -- The machine.
  machine_id JOINID(machine.id)
) AS
SELECT * FROM _linux_interrupt_mapping;
