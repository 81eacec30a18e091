import type { StoredFunction } from '../database/stored-function.ts';

/**
 * A flow starts with its id as its URL key, however it is inserted
 * (docs/decisions/0013-who-may-send-what.md): a trigger on flows, created by migration 011.
 */
export const flowsDefaultWebhookKeyFunction: StoredFunction = {
  name: 'flows_default_webhook_key',
  definition: `CREATE OR REPLACE FUNCTION flows_default_webhook_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.webhook_key := COALESCE(NEW.webhook_key, NEW.id);
  RETURN NEW;
END;
$$`,
};
