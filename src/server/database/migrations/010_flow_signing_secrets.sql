-- Signatures of generic senders (docs/decisions/0012-generic-sender-signatures.md): a
-- flow with a row here refuses generic requests without a valid X-Flowsmith-Signature.
-- Secrets are encrypted with the credentials cipher (context: the flow), never stored in
-- the clear; `secret_mask` is what the owner sees after the one answer that created it.
CREATE TABLE flow_signing_secrets (
  flow_id text PRIMARY KEY REFERENCES flows (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  secret text NOT NULL,
  secret_mask text NOT NULL,
  created_at timestamptz NOT NULL,
  -- After "Generate new secret" the replaced secret stays valid for an hour, so senders
  -- can switch over without losing events.
  previous_secret text,
  previous_valid_until timestamptz,
  CHECK ((previous_secret IS NULL) = (previous_valid_until IS NULL))
);
CREATE INDEX flow_signing_secrets_owner ON flow_signing_secrets (user_id);
