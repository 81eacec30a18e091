-- When events finished, per owner (docs/decisions/0033-steady-for-hours.md): the
-- dashboard counts an owner's events finished in the last hour and failed in the last
-- day, and without this index each count read every event the owner keeps (a retention
-- period of them) on every refresh. Only finished rows are in it; a status change is
-- never a HOT update anyway (migration 030), so the finishing update adds one entry.
CREATE INDEX events_user_finished ON events (user_id, finished_at) WHERE finished_at IS NOT NULL;
