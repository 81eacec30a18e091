-- Shopify names the shopper of a privacy request by customer id, email, phone and order
-- ids, and any of them may be empty (docs/decisions/0028-shopper-privacy.md). The request
-- keeps all of them until it is carried out: the phone is cleared then (Flowsmith keeps
-- no phone numbers of its own), the order ids stay as the audit record of what was asked.
ALTER TABLE privacy_requests ADD COLUMN shopper_phone text;
ALTER TABLE privacy_requests ADD COLUMN order_ids text[] NOT NULL DEFAULT '{}';
-- A shopper named only by customer id or orders may have no email to file the export under.
ALTER TABLE privacy_exports ALTER COLUMN shopper_email DROP NOT NULL;
