-- ANALYZE keeps no statistics of the columns no query filters, joins or sorts on: the
-- bodies, texts and messages (docs/decisions/0033-steady-for-hours.md). Sampling them
-- (30,000 rows of JSON and prose, decompressed) was most of each ANALYZE's time, and on
-- the embedded database nothing else runs meanwhile: under a steady load ANALYZE took
-- more of the session than VACUUM, some passes up to a second.
ALTER TABLE events ALTER COLUMN raw_body SET STATISTICS 0;
ALTER TABLE events ALTER COLUMN normalized SET STATISTICS 0;
ALTER TABLE events ALTER COLUMN headers SET STATISTICS 0;
ALTER TABLE events ALTER COLUMN error SET STATISTICS 0;
ALTER TABLE event_generations ALTER COLUMN prompt SET STATISTICS 0;
ALTER TABLE event_generations ALTER COLUMN text SET STATISTICS 0;
ALTER TABLE event_generations ALTER COLUMN instructions SET STATISTICS 0;
ALTER TABLE event_generations ALTER COLUMN error SET STATISTICS 0;
ALTER TABLE event_deliveries ALTER COLUMN properties SET STATISTICS 0;
ALTER TABLE event_deliveries ALTER COLUMN error SET STATISTICS 0;
