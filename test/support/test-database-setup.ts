import type { TestProject } from 'vitest/node';
import { createEmbeddedSnapshot, createServerTemplate } from './test-database-snapshot.ts';
import { testDatabaseKind } from './test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated database each test database starts from (test-database-snapshot.ts). */
    testDatabaseSnapshot: { embeddedFile: string | null; serverTemplate: string | null };
  }
}

/**
 * Vitest global set-up of the integration tests: makes the migrated snapshot once, before
 * the workers start, and removes it when they are done.
 */
export default async function prepareTestDatabaseSnapshot(project: TestProject): Promise<() => Promise<void>> {
  if (testDatabaseKind() === 'server') {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('FLOWSMITH_TEST_DB=server needs TEST_DATABASE_URL');
    const template = await createServerTemplate(adminUrl);
    project.provide('testDatabaseSnapshot', { embeddedFile: null, serverTemplate: template.name });
    return template.remove;
  }
  const snapshot = await createEmbeddedSnapshot();
  project.provide('testDatabaseSnapshot', { embeddedFile: snapshot.file, serverTemplate: null });
  return snapshot.remove;
}
