-- What decides an experiment's best arm (docs/decisions/0043-experiments.md, "Objective"):
-- conversion, as every experiment before this one was judged, or revenue per exposure in one
-- currency (amounts in different currencies are never added or converted). Existing rows read
-- as conversion. An arm's `shopperContext` lives in `arms`; an arm stored without it used the
-- shopper's context, and reads so.
ALTER TABLE flow_experiments
  ADD COLUMN objective text NOT NULL DEFAULT 'conversion' CHECK (objective IN ('conversion', 'revenue_per_exposure')),
  ADD COLUMN objective_currency text CHECK (objective_currency ~ '^[A-Z]{3}$'),
  ADD CONSTRAINT flow_experiments_objective_currency CHECK (objective = 'conversion' OR objective_currency IS NOT NULL);
