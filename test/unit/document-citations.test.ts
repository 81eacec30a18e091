import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/**
 * Documents that exist only outside the repository. Code and docs once cited them; a
 * reader following such a pointer finds nothing, so they must not be cited. The names are
 * put together here rather than written out, so that this file does not cite them itself.
 */
const outsideDocuments = ['SPEC', 'PRODUCT', 'STACK', 'INTEGRATIONS'].map((name) => `${name}.md`);
const outsideCitation = new RegExp(`(?<![\\w./-])(${outsideDocuments.map((name) => name.replace('.', '\\.')).join('|')})(?![\\w-])`, 'g');
/** A repository document, `docs/….md`, optionally followed by a section (`§4`, `§ 4.2`). */
const documentCitation = /(?<![\w./-])(docs\/[\w./-]*?\.md)(?![\w-])(?:\s*§\s*(\d+(?:\.\d+)*))?/g;

export interface Citation {
  line: number;
  kind: 'outside' | 'document';
  /** What was cited: the outside name, or the `docs/…` path. */
  target: string;
  /** The section number after a `docs/…` path, when there is one. */
  section: string | null;
}

export interface CitationProblem {
  line: number;
  problem: string;
}

/** Every citation of an outside document or a `docs/…` path in a text, by line. */
export function findCitations(text: string): Citation[] {
  const citations: Citation[] = [];
  text.split('\n').forEach((content, index) => {
    for (const match of content.matchAll(outsideCitation)) {
      citations.push({ line: index + 1, kind: 'outside', target: match[1]!, section: null });
    }
    for (const match of content.matchAll(documentCitation)) {
      citations.push({ line: index + 1, kind: 'document', target: match[1]!, section: match[2] ?? null });
    }
  });
  return citations;
}

/** The numbered sections of a document: headings such as `## 4. States`. */
function sectionsOf(document: string): Set<string> {
  return new Set([...document.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)].map((match) => match[1]!));
}

/**
 * What is wrong with a text's citations: an outside document cited at all; a `docs/…` path
 * that does not exist in the repository; a section that a document with numbered
 * sections does not have.
 */
export function citationProblems(text: string, root: string = projectRoot): CitationProblem[] {
  const problems: CitationProblem[] = [];
  for (const citation of findCitations(text)) {
    if (citation.kind === 'outside') {
      problems.push({ line: citation.line, problem: `cites ${citation.target}, which is not in the repository` });
      continue;
    }
    const file = path.join(root, citation.target);
    if (!existsSync(file)) {
      problems.push({ line: citation.line, problem: `cites ${citation.target}, which does not exist` });
      continue;
    }
    if (citation.section === null) continue;
    const sections = sectionsOf(readFileSync(file, 'utf8'));
    if (sections.size > 0 && !sections.has(citation.section)) {
      problems.push({ line: citation.line, problem: `cites ${citation.target} §${citation.section}, which has no such section` });
    }
  }
  return problems;
}

const scannedFolders = ['src', 'test', 'bench', 'docs', 'scripts', '.ci'];
const scannedFiles = ['README.md'];
const skippedFolders = new Set(['node_modules', 'dist', '.tmp']);

function filesUnder(folder: string): string[] {
  const absolute = path.join(projectRoot, folder);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) return skippedFolders.has(entry.name) ? [] : filesUnder(relative);
    return entry.isFile() ? [relative] : [];
  });
}

/** The text files to scan; a file with a NUL byte is binary and skipped. */
function scannedTexts(): Array<{ file: string; text: string }> {
  return [...scannedFolders.flatMap(filesUnder), ...scannedFiles]
    .map((file) => ({ file, bytes: readFileSync(path.join(projectRoot, file)) }))
    .filter(({ bytes }) => !bytes.includes(0))
    .map(({ file, bytes }) => ({ file, text: bytes.toString('utf8') }));
}

describe('document citations', () => {
  it('finds an outside document and a missing docs path, and accepts a real one', () => {
    const outside = 'SPEC' + '.md';
    const missing = 'docs/' + 'nowhere/missing-record.md';
    // Joined like the names, so that this file's own text has no citation of a missing section.
    const unknownSection = '9' + '9';
    const sample = [
      `// the lockout of ${outside} section 4`,
      `// see ${missing} §2`,
      '// see docs/product/specification.md §4 and docs/decisions/0003-auth.md',
      `// see docs/product/specification.md §${unknownSection}`,
      `// ${'INTEGRATIONS' + '.md'}: the services`,
    ].join('\n');

    expect(findCitations(sample)).toEqual([
      { line: 1, kind: 'outside', target: outside, section: null },
      { line: 2, kind: 'document', target: missing, section: '2' },
      { line: 3, kind: 'document', target: 'docs/product/specification.md', section: '4' },
      { line: 3, kind: 'document', target: 'docs/decisions/0003-auth.md', section: null },
      { line: 4, kind: 'document', target: 'docs/product/specification.md', section: unknownSection },
      { line: 5, kind: 'outside', target: 'INTEGRATIONS' + '.md', section: null },
    ]);
    expect(citationProblems(sample)).toEqual([
      { line: 1, problem: `cites ${outside}, which is not in the repository` },
      { line: 2, problem: `cites ${missing}, which does not exist` },
      { line: 4, problem: `cites docs/product/specification.md §${unknownSection}, which has no such section` },
      { line: 5, problem: `cites ${'INTEGRATIONS' + '.md'}, which is not in the repository` },
    ]);
  });

  it('does not take a longer name, a URL or another folder for a citation', () => {
    const text = [
      `MY${'SPEC' + '.md'} and ${'SPEC' + '.mdx'}`,
      'https://example.com/docs/guide.md',
      'website/docs/guide.md',
    ].join('\n');
    expect(findCitations(text)).toEqual([]);
  });

  it('finds no file in the repository citing a document it does not hold', () => {
    const problems = scannedTexts().flatMap(({ file, text }) =>
      citationProblems(text).map(({ line, problem }) => `${file}:${line}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });
});

/** A repository file a document points at by its full path, in backticks: `src/server/app.ts`. */
const filePointer = /`((?:src|test|bench|scripts)\/[\w./-]+\.(?:ts|tsx|cjs|mjs|json|sql))`/g;

export function missingFilePointers(text: string, root: string = projectRoot): string[] {
  return [...text.matchAll(filePointer)].map((match) => match[1]!).filter((file) => !existsSync(path.join(root, file)));
}

describe('file pointers in the documents', () => {
  it('finds a pointer to a file that is not there, and accepts one that is', () => {
    expect(missingFilePointers('`src/server/app.ts` builds it; `src/server/webhooks/' + 'gone.ts` did once; `bench/ingest.ts`')).toEqual([
      'src/server/webhooks/' + 'gone.ts',
    ]);
  });

  it('name only files the repository holds', () => {
    const documents = [...filesUnder('docs'), 'README.md'].filter((file) => file.endsWith('.md'));
    const missing = documents.flatMap((file) => missingFilePointers(readFileSync(path.join(projectRoot, file), 'utf8')).map((pointer) => `${file}: ${pointer}`));
    expect(missing, 'documents pointing at files that do not exist').toEqual([]);
  });
});
