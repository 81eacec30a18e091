-- A third kind of per-owner use: checks that call OpenAI, Klaviyo or Shopify with the
-- keys an owner typed. Reads and writes got limits sized for people (hundreds a minute);
-- these keep a tight one of their own (docs/decisions/0025-per-owner-rate-limits.md).
ALTER TABLE user_rate_limit_uses DROP CONSTRAINT user_rate_limit_uses_kind_check;
ALTER TABLE user_rate_limit_uses ADD CONSTRAINT user_rate_limit_uses_kind_check CHECK (kind IN ('write', 'read', 'check'));
