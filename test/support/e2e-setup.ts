import type { TestProject } from 'vitest/node';
import { createEmbeddedDataDirectory } from './test-database-snapshot.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded data directory each browser-test server copies (test-database-snapshot.ts). */
    e2eDataDirectory: string;
  }
}

/** Vitest global set-up of the browser tests: migrates one data directory before the files run. */
export default async function prepareE2EDataDirectory(project: TestProject): Promise<() => Promise<void>> {
  const prepared = await createEmbeddedDataDirectory();
  project.provide('e2eDataDirectory', prepared.directory);
  return prepared.remove;
}
