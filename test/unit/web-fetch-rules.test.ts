import { describe, expect, it } from 'vitest';
import { sourcesUnder, type Source } from '../support/source-files.ts';

/**
 * One way to fetch in the browser: every query, mutation and use of the query cache lives
 * in its feature's hook module (`src/web/<feature>/use-<thing>.ts`), which components call;
 * only src/web/app/ (the API client, the query client's setup) stands apart. A query key is
 * never written out as an array where it is used: each feature's key factory (`flowKeys`,
 * `eventKeys` …) names it, so every reader and every invalidation of a key use the same one.
 */

/** A hook module, or the app's own plumbing. */
function mayFetch(file: string): boolean {
  return /\/use-[\w-]+\.ts$/.test(file) || file.startsWith('src/web/app/');
}

/** TanStack Query's hooks, called (a generic argument allowed). */
const queryHooks = /\b(useQuery|useQueries|useInfiniteQuery|useSuspenseQuery|useSuspenseInfiniteQuery|useMutation|useQueryClient)\s*(?:<[^()]*>)?\s*\(/g;
/** The query cache, read or changed. */
const cacheCalls = /\.(invalidateQueries|refetchQueries|resetQueries|removeQueries|cancelQueries|setQueryData|getQueryData|setQueriesData|getQueriesData|prefetchQuery|fetchQuery|ensureQueryData)\s*(?:<[^()]*>)?\s*\(/g;
/** A key written out where it is used: `queryKey: [` or a cache call whose key argument is an array. */
const literalKeys = [/\bqueryKey\s*:\s*\[/g, /\.(?:setQueryData|getQueryData)\s*(?:<[^()]*>)?\s*\(\s*\[/g];

/** The code without its comments, so a comment may name what it explains. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Each break of the rules, as `file: what`, in file order. */
function fetchRuleBreaks(sources: Source[]): string[] {
  const found: string[] = [];
  for (const { file, text } of sources) {
    const code = withoutComments(text);
    if (!mayFetch(file)) {
      for (const match of code.matchAll(queryHooks)) found.push(`${file}: ${match[1]} outside a hook module`);
      for (const match of code.matchAll(cacheCalls)) found.push(`${file}: ${match[1]} outside a hook module`);
    }
    for (const pattern of literalKeys) {
      for (const match of code.matchAll(pattern)) found.push(`${file}: query key written as an array (${match[0].trim()})`);
    }
  }
  return found;
}

describe('the browser fetch scan', () => {
  it('finds queries, mutations and the query cache used outside a hook module', () => {
    const sources = [
      { file: 'src/web/privacy/privacy-page.tsx', text: 'const shopper = useQuery({ queryKey: privacyKeys.shopper(email), queryFn });' },
      { file: 'src/web/flows/flow-card.tsx', text: 'const save = useMutation<Flow, Error, Input>({ mutationFn });\nconst client = useQueryClient();\nvoid client.invalidateQueries({ queryKey: flowKeys.all });' },
      { file: 'src/web/events/event-log.tsx', text: 'const log = useInfiniteQuery({ queryKey: eventKeys.list(flowType, null), queryFn, initialPageParam: null, getNextPageParam });' },
      // Hook modules and the app's plumbing may; a hook a component calls is no break, nor is a comment naming one.
      { file: 'src/web/privacy/use-privacy.ts', text: 'export function useShopperLookup(email) {\n  return useQuery({ queryKey: privacyKeys.shopper(email), queryFn });\n}' },
      { file: 'src/web/app/app.tsx', text: 'const queryClient = new QueryClient();' },
      { file: 'src/web/flows/flow-page.tsx', text: '// useQuery( lives in use-flows.ts\nconst flows = useFlows();\nconst save = useSaveFlow(flowType);' },
    ];
    expect(fetchRuleBreaks(sources)).toEqual([
      'src/web/privacy/privacy-page.tsx: useQuery outside a hook module',
      'src/web/flows/flow-card.tsx: useMutation outside a hook module',
      'src/web/flows/flow-card.tsx: useQueryClient outside a hook module',
      'src/web/flows/flow-card.tsx: invalidateQueries outside a hook module',
      'src/web/events/event-log.tsx: useInfiniteQuery outside a hook module',
    ]);
  });

  it('finds a query key written as an array, in a hook module too', () => {
    const sources = [
      { file: 'src/web/privacy/use-privacy.ts', text: "return useQuery({ queryKey: ['privacy', 'endpoint'], queryFn });" },
      { file: 'src/web/dashboard/use-dashboard-live.ts', text: "void queryClient.invalidateQueries({ queryKey: [...flowKeys.all, 'costs'] });" },
      { file: 'src/web/account/use-retention.ts', text: "queryClient.setQueryData<RetentionSettings>(['retention'], saved);" },
      // The factory itself writes its keys out; a key read from a query is no key written.
      { file: 'src/web/flows/use-flows.ts', text: "export const flowKeys = { all: ['flows'] as const };\nuseQuery({ queryKey: flowKeys.all, queryFn });" },
      { file: 'src/web/sandbox/use-sandbox.ts', text: 'predicate: (query) => query.queryKey[0] !== sandboxKeys.all[0]' },
    ];
    expect(fetchRuleBreaks(sources)).toEqual([
      "src/web/privacy/use-privacy.ts: query key written as an array (queryKey: [)",
      "src/web/dashboard/use-dashboard-live.ts: query key written as an array (queryKey: [)",
      "src/web/account/use-retention.ts: query key written as an array (.setQueryData<RetentionSettings>([)",
    ]);
  });
});

describe("the browser's fetching", () => {
  it('keeps every query, mutation and query key in the hook modules and their key factories', async () => {
    expect(fetchRuleBreaks(await sourcesUnder('src/web'))).toEqual([]);
  });
});
