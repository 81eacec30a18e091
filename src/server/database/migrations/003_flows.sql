-- One row per owner and flow type. `id` is the flow id of the webhook URL
-- ({PUBLIC_URL}/api/webhooks/{flow_type}/{id}): 128+ random bits, base64url, so that
-- knowing one URL tells nothing about another.
CREATE TABLE flows (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  flow_type text NOT NULL CHECK (flow_type IN ('browser_abandonment', 'abandoned_cart', 'abandoned_checkout', 'post_purchase')),
  is_active boolean NOT NULL DEFAULT false,
  webhook_url text,
  -- [{name, klaviyo_property, prompt_template, model|null, instructions|null}]
  assistants jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- Abandonment flows: how long after the last shopper activity content is generated.
  wait_minutes integer NOT NULL DEFAULT 30 CHECK (wait_minutes BETWEEN 0 AND 10080),
  -- Optional Klaviyo metric name sent once content is ready (e.g. "AI content ready").
  klaviyo_event_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, flow_type)
);
