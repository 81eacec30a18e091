import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { createGenerator } from 'ts-json-schema-generator';

/**
 * JSON Schemas made from a vendor package's own TypeScript types (the official `openai`
 * SDK, the official `klaviyo-api` SDK, Shopify's web-pixels types), so that the test
 * stand-ins check requests and answers against the vendor's definition, not against
 * our reading of it. Generating takes a few seconds per package (TypeScript builds
 * the program), so each result is kept under node_modules/.cache, keyed by the
 * package's installed version and the types asked for: a version bump regenerates.
 */
export type JsonSchema = Record<string, unknown> & { definitions?: Record<string, JsonSchema> };

// Packages are read where npm installed them (some, like openai, export no package.json).
const nodeModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const cacheDir = path.join(nodeModules, '.cache/vendor-definitions');

export function packageFile(packageName: string, file: string): string {
  return path.join(nodeModules, packageName, file);
}

export function installedVersion(packageName: string): string {
  return (JSON.parse(readFileSync(packageFile(packageName, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The definitions of `types` (and all they reference) from `file` in `packageName`, one
 * schema with a `definitions` map. `additionalProperties: false` throughout: a field
 * the vendor does not define is an error, as the services answer it.
 */
export function schemasFromTypes(packageName: string, file: string, types: string[]): Record<string, JsonSchema> {
  const version = installedVersion(packageName);
  const key = createHash('sha256').update(JSON.stringify([packageName, version, file, [...types].sort()])).digest('hex').slice(0, 16);
  const cached = path.join(cacheDir, `${packageName.replace(/[@/]/g, '_')}-${version}-${key}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as Record<string, JsonSchema>;
  const generator = createGenerator({
    path: packageFile(packageName, file),
    skipTypeCheck: true,
    expose: 'all',
    topRef: false,
    jsDoc: 'none',
    additionalProperties: false,
    tsconfig: undefined,
  });
  const definitions: Record<string, JsonSchema> = {};
  for (const type of types) {
    const schema = generator.createSchema(type) as JsonSchema;
    Object.assign(definitions, schema.definitions ?? {});
    const { definitions: _ignored, $schema: _version, ...root } = schema;
    definitions[type] = root;
  }
  mkdirSync(cacheDir, { recursive: true });
  // Written aside and renamed, so a parallel test worker never reads half a file.
  const partial = `${cached}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(definitions));
  renameSync(partial, cached);
  return definitions;
}

export interface Checked {
  ok: boolean;
  /** What the definition refused, one line each ("/data/attributes/email: must be string"). */
  problems: string[];
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const where = error.instancePath || '/';
    if (error.keyword === 'additionalProperties') return `${where}: '${String(error.params.additionalProperty)}' is not a field the definition has`;
    if (error.keyword === 'required') return `${where}: '${String(error.params.missingProperty)}' is required`;
    if (error.keyword === 'const' || error.keyword === 'enum') return `${where}: must be ${JSON.stringify(error.params.allowedValue ?? error.params.allowedValues)}`;
    return `${where}: ${error.message ?? error.keyword}`;
  });
}

/**
 * Validators over one set of definitions. anyOf/oneOf failures list every branch's
 * complaint; the shortest few are kept, as the branch that was meant is usually the one
 * that came closest.
 */
export function validatorsFor(definitions: Record<string, JsonSchema>) {
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, allowUnionTypes: true });
  // Refs inside (#/definitions/X) resolve against the schema's own id.
  ajv.addSchema({ $id: 'vendor', definitions });
  const compiled = new Map<string, ValidateFunction>();
  function validator(type: string): ValidateFunction {
    let validate = compiled.get(type);
    if (!validate) {
      if (!definitions[type]) throw new Error(`The definition has no type ${type}`);
      validate = ajv.compile({ $ref: `vendor#/definitions/${type}` });
      compiled.set(type, validate);
    }
    return validate;
  }
  return {
    /** Compiles the checks of `types` now. A first check compiles its type (half a second for OpenAI's Response here), which a busy machine stretched past a caller's time limit. */
    prepare(types: Iterable<string>): void {
      for (const type of types) validator(type);
    },
    /** The types whose checks are compiled. */
    compiledTypes(): string[] {
      return [...compiled.keys()];
    },
    check(type: string, value: unknown): Checked {
      const validate = validator(type);
      if (validate(value)) return { ok: true, problems: [] };
      const problems = describe(validate.errors);
      // anyOf noise: "must match a schema in anyOf" adds nothing once its branches are listed.
      const useful = problems.filter((problem) => !problem.endsWith('must match a schema in anyOf') && !problem.endsWith('must match exactly one schema in oneOf'));
      return { ok: false, problems: [...new Set(useful.length > 0 ? useful : problems)].slice(0, 8) };
    },
  };
}
