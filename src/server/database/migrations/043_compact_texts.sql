-- Less stored per event (docs/decisions/0057-compact-stored-checks.md).
--
-- Nothing reads deliveries by their creation time: the dashboard and the activity figures
-- count them by `updated_at` through their events, and retention deletes them with their
-- events. The index cost 47 bytes an event in a steady load, and one more entry to write
-- with every delivery.
DROP INDEX IF EXISTS event_deliveries_created;

-- A delivery's properties that are its own texts are kept by name, not copied again
-- (deliveredPropertiesOf, src/server/deliveries/delivery-queries.ts). NULL: every property is
-- in `properties` (rows stored before, holdouts, and deliveries without texts).
ALTER TABLE event_deliveries ADD COLUMN text_properties text[];
