import { describe, expect, it } from 'vitest';
import { isStreamChange } from '../../src/shared/webhooks/stream-changes.ts';
import { streamChangeSchema } from '../../src/shared/webhooks/webhook-schemas.ts';

/**
 * The live console reads the stream with a hand-written guard, so the page does not load
 * zod for it (src/shared/webhooks/stream-changes.ts). The guard must take what the schema
 * takes and leave out what it leaves out, or a change would be shown (or dropped) that
 * the schema describes otherwise.
 */
const change = {
  changeId: '1042-7',
  eventId: 'evt_1',
  arrival: true,
  flowType: 'abandoned_cart',
  status: 'received',
  source: 'test',
  dryRun: false,
  receivedAt: '2026-03-01T10:00:00.000Z',
  changedAt: '2026-03-01T10:00:00.000Z',
  payload: { cart: { items: 2 } },
  error: null,
  generations: [{ assistantName: 'Subject line', klaviyoProperty: 'subject', text: 'Still thinking it over?', error: null }],
};

const withField = (field: string, value: unknown) => ({ ...change, [field]: value });
const without = (field: string) => Object.fromEntries(Object.entries(change).filter(([name]) => name !== field));
const withText = (text: Record<string, unknown>) => ({ ...change, generations: [text] });
const text = change.generations[0]!;

const cases: Array<[title: string, value: unknown, isChange: boolean]> = [
  ['an arrival', change, true],
  ['a later status change that failed, without texts', { ...change, arrival: false, status: 'failed', error: 'Klaviyo refused the key', generations: [] }, true],
  ['a body that is not JSON, kept as text', withField('payload', 'name=Ana'), true],
  ['a field the page does not know', withField('attempt', 2), true],
  ['a text that failed', withText({ ...text, text: null, error: 'timeout' }), true],
  ...Object.keys(change).map((field): [string, unknown, boolean] => [`${field} left out`, without(field), false]),
  ['a change id that is a number', withField('changeId', 1042), false],
  ['arrival as text', withField('arrival', 'true'), false],
  ['a flow type there is no flow for', withField('flowType', 'win_back'), false],
  ['a status there is none of', withField('status', 'lost'), false],
  ['a source there is none of', withField('source', 'email'), false],
  ['dryRun as a number', withField('dryRun', 0), false],
  ['an error that is not text', withField('error', { message: 'boom' }), false],
  ['texts that are not a list', withField('generations', {}), false],
  ['a text without its assistant', withText({ ...text, assistantName: undefined }), false],
  ['a text without its property', withText({ assistantName: 'Subject line', text: null, error: null }), false],
  ['a text whose text is a number', withText({ ...text, text: 3 }), false],
  ['a text that is not an object', withField('generations', ['Still thinking it over?']), false],
  ['a list of changes', [change], false],
  ['text', 'change', false],
  ['null', null, false],
];

describe('the stream change guard', () => {
  it.each(cases.map(([title, value, isChange]) => ({ title, value, isChange })))('$title: a change is $isChange for both', ({ value, isChange }) => {
    expect(streamChangeSchema.safeParse(value).success).toBe(isChange);
    expect(isStreamChange(value)).toBe(isChange);
  });
});
