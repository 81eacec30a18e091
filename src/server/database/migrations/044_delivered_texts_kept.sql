-- A text stays as it went out once its delivery has begun
-- (docs/decisions/0062-delivered-texts-kept.md).
--
-- A delivery names the properties that are exactly its attempt's texts instead of copying
-- them (043), so the event detail, the bulk import and the shopper's export read those
-- texts from `event_generations`. Rewriting such a text afterwards would make them show
-- words the shopper's profile never got. The writers keep to that order today, except one:
-- a run of an event's job that another worker took over (decision 0061) may store its own
-- texts after the other run's delivery began. Here the database holds the order for every
-- writer: once the attempt has a delivery, an update keeps what describes the text (its
-- words, checks, prompt, model, status) and takes only what it adds to the tokens and cost,
-- which were spent all the same.
CREATE FUNCTION keep_delivered_texts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kept event_generations;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = OLD.event_id AND d.attempt = OLD.attempt) THEN
    RETURN NEW;
  END IF;
  kept := OLD;
  kept.input_tokens := NEW.input_tokens;
  kept.output_tokens := NEW.output_tokens;
  kept.total_tokens := NEW.total_tokens;
  kept.cached_input_tokens := NEW.cached_input_tokens;
  kept.cost_usd := NEW.cost_usd;
  kept.cost_estimated := NEW.cost_estimated;
  RETURN kept;
END $$;

CREATE TRIGGER event_generations_keep_delivered BEFORE UPDATE ON event_generations
  FOR EACH ROW EXECUTE FUNCTION keep_delivered_texts();
