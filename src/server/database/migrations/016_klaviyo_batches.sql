-- Deliveries under a backlog go to Klaviyo in bulk import jobs (docs/decisions/0020-klaviyo-batches.md).
-- A delivery queued for a batch keeps what the bulk job needs (the owner, whose Klaviyo
-- account it is, and the shopper's email and names); `batch_id` says which job carries it.
ALTER TABLE event_deliveries
  ADD COLUMN user_id text REFERENCES users (id) ON DELETE CASCADE,
  ADD COLUMN email text,
  ADD COLUMN first_name text,
  ADD COLUMN last_name text,
  ADD COLUMN batched_at timestamptz,
  ADD COLUMN batch_id text;

CREATE INDEX event_deliveries_batch_queue ON event_deliveries (user_id, batched_at)
  WHERE status = 'pending' AND batched_at IS NOT NULL AND batch_id IS NULL;
CREATE INDEX event_deliveries_batch ON event_deliveries (batch_id) WHERE batch_id IS NOT NULL;

-- One bulk import job and what became of it. A worker holds a batch while `lease_until`
-- is ahead; a batch whose worker died is taken up again by another, and goes on from
-- where its row says it got to (the job posted or not, the events sent or not).
CREATE TABLE klaviyo_batches (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('importing', 'sending_events', 'done')),
  job_id text,
  lease_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX klaviyo_batches_open ON klaviyo_batches (lease_until) WHERE status <> 'done';
