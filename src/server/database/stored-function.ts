/**
 * A function stored in the database, as its module holds it now. The migration runner
 * (migrate.ts) applies `definition` whenever it differs from the text last applied, so a
 * function has one current text, beside the queries that call it, instead of the newest
 * of the migrations that once defined it (docs/decisions/0034-stored-functions-in-modules.md).
 */
export interface StoredFunction {
  /** The function's name, as the runner records it. */
  name: string;
  /**
   * One statement that creates or replaces the function. It keeps the function's arguments and
   * result type: PostgreSQL replaces a function of the same arguments only, and never
   * changes its result type, so a change of either drops the old function in a migration.
   */
  definition: string;
}
