-- A bulk delivery batch that keeps failing is tried again after the retry policy's waits,
-- and after its last try its deliveries fail with the error, instead of being taken up
-- again every lease for ever; `job_posted_at` bounds how long its job is followed
-- (docs/decisions/0020-klaviyo-batches.md).
ALTER TABLE klaviyo_batches ADD COLUMN failed_tries integer NOT NULL DEFAULT 0;
ALTER TABLE klaviyo_batches ADD COLUMN last_error text;
ALTER TABLE klaviyo_batches ADD COLUMN job_posted_at timestamptz;
