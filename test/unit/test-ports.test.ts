import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const integrationFolder = path.resolve(import.meta.dirname, '../integration');

/**
 * Integration tests answer in-process through `inject` (docs/decisions/0051-rooms-and-layers.md);
 * a file that opens a real port, starts the real server or another process, or listens
 * itself says so in one of these ways. The service stand-ins always listen (the app reaches
 * them over real HTTP) and are not counted.
 */
const opensAPort = [
  { what: 'the app on a port', pattern: /\blisten:\s*true\b/ },
  { what: 'the real server process', pattern: /\bstartE2EServer\(/ },
  { what: 'a worker process', pattern: /\bstartWorkerProcess\(/ },
  { what: 'a child process', pattern: /\bspawn\(|\bexecFile(Sync)?\(|\bexec(Sync)?\(/ },
  { what: 'a server of its own', pattern: /\.listen\(/ },
];

export function portsOpenedBy(text: string): string[] {
  return opensAPort.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
}

describe('integration test files that open a port', () => {
  it('are recognised by what they start, and a file that only asks the app in-process is not', () => {
    expect(portsOpenedBy("const scenario = useEngineScenario({ listen: true, standIns: ['openai'] });")).toEqual(['the app on a port']);
    expect(portsOpenedBy('server = await startE2EServer({ env });')).toEqual(['the real server process']);
    expect(portsOpenedBy("execSync(`curl -X POST '${url}'`);")).toEqual(['a child process']);
    expect(portsOpenedBy("const scenario = useEngineScenario({ standIns: allStandIns });\nconst answer = await fetch(`${scenario.testApp.baseUrl}/healthz`);")).toEqual([]);
    expect(portsOpenedBy('await startTestApp({ listen: false });')).toEqual([]);
  });

  it('are at most a third of them', async () => {
    const files = (await readdir(integrationFolder)).filter((name) => name.endsWith('.test.ts')).sort();
    const withPorts: string[] = [];
    for (const file of files) {
      const opened = portsOpenedBy(await readFile(path.join(integrationFolder, file), 'utf8'));
      if (opened.length > 0) withPorts.push(`${file}: ${opened.join(', ')}`);
    }
    expect(files.length).toBeGreaterThan(30);
    expect(withPorts.length, `integration files that open a port:\n${withPorts.join('\n')}`).toBeLessThanOrEqual(Math.floor(files.length / 3));
  });
});
