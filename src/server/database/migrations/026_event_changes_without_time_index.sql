-- The change log loses its index on created_at: every event arriving and every change of
-- its status adds a row, and that index's insert was a tenth of the intake's statement on
-- server PostgreSQL (bench:ingest: 121 µs an event with it, 108 µs without). Its one
-- reader, the daily cleanup, now walks the primary key from the oldest row instead
-- (realtime/event-change-queries.ts): ids grow with time, so the oldest rows come first.
DROP INDEX event_changes_created;
