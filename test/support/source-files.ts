import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/** One source file for the scans of the module rules: its path relative to the project, and its text. */
export interface Source {
  file: string;
  text: string;
}

/** The TypeScript files under `folder` (relative to the project), sorted, with their text. */
export async function sourcesUnder(folder: string): Promise<Source[]> {
  const names = await readdir(path.join(projectRoot, folder), { recursive: true });
  const files = names.filter((name) => /\.tsx?$/.test(name)).map((name) => path.posix.join(folder, name.split(path.sep).join('/')));
  return Promise.all(files.sort().map(async (file) => ({ file, text: await readFile(path.join(projectRoot, file), 'utf8') })));
}
