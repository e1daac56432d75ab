/**
 * What `npm test`'s global fixtures (`run-fixtures.ts`) hand the test files through the
 * environment, which mocha's parallel workers inherit: the run's id, naming its PostgreSQL
 * databases, and its template, a database at the latest schema for tests to copy.
 */
const RUN = "CAREFLOW_TEST_RUN";
const TEMPLATE = "CAREFLOW_TEST_TEMPLATE";

export const runId = (): string | undefined => process.env[RUN] || undefined;

/** The run's migrated SQLite file or PostgreSQL database name; none outside `npm test`. */
export const runTemplate = (): string | undefined => process.env[TEMPLATE] || undefined;

export function setRun(id: string, template: string): void {
  process.env[RUN] = id;
  process.env[TEMPLATE] = template;
}

/** Test databases of a run share a prefix, so its teardown finds them all (and no other run's). */
export const testDatabasePrefix = (run = runId()): string => (run ? `careflow_test_${run}_` : "careflow_test_");

export const templateDatabaseName = (run: string): string => `careflow_template_${run}`;
