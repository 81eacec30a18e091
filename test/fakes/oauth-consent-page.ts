import type { FakeReply } from './fake-server.ts';

/**
 * The HTML the stand-ins' OAuth consent screens are made of (fake Shopify's install page,
 * fake Klaviyo's authorize page), and what a test needs to act on one as a browser would:
 * read its form and press one of its buttons.
 *
 * A consent page is one `<form method="post">` whose buttons are `<button type="submit"
 * name="decision" value="…">Label</button>`; the form's hidden fields carry the pending
 * authorization's id, so pressing a button is one POST of those fields plus the button's
 * name and value, answered with a 302 (or a page). A browser test clicks the button by its
 * visible text; an integration test calls `pressConsentButton`.
 */

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char]!);
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title></head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface ConsentPage {
  /** The page's title and its heading ("Install Flowsmith", "Allow Flowsmith to access Acme"). */
  title: string;
  /** Sentences above the list (what is asked, for which shop or account). */
  paragraphs: string[];
  /** What is asked, one item each (the scopes). */
  listHeading: string;
  items: string[];
  /** Where the form posts, relative to the stand-in (e.g. /admin/oauth/authorize/decision). */
  action: string;
  hidden: Record<string, string>;
  /** In page order; the first is the one that grants. */
  buttons: Array<{ label: string; value: string }>;
}

/** A consent screen: 200 text/html with one form and its buttons. */
export function consentPage(page: ConsentPage): FakeReply {
  const hidden = Object.entries(page.hidden)
    .map(([name, value]) => `  <input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const buttons = page.buttons.map((button) => `  <button type="submit" name="decision" value="${escapeHtml(button.value)}">${escapeHtml(button.label)}</button>`).join('\n');
  const body = [
    `<h1>${escapeHtml(page.title)}</h1>`,
    ...page.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    `<h2>${escapeHtml(page.listHeading)}</h2>`,
    `<ul>\n${page.items.map((item) => `  <li>${escapeHtml(item)}</li>`).join('\n')}\n</ul>`,
    `<form method="post" action="${escapeHtml(page.action)}">\n${hidden}\n${buttons}\n</form>`,
  ].join('\n');
  return htmlReply(200, document(page.title, body));
}

/**
 * A page that refuses the request (an unknown client, a redirect address not registered,
 * a scope that does not exist …): `status` (400 unless said) with the problem in words.
 */
export function refusalPage(title: string, problem: string, status = 400): FakeReply {
  return htmlReply(status, document(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(problem)}</p>`));
}

/** A page that only says something (e.g. "Installation cancelled"). */
export function messagePage(title: string, text: string, status = 200): FakeReply {
  return htmlReply(status, document(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>`));
}

function htmlReply(status: number, html: string): FakeReply {
  return { status, contentType: 'text/html; charset=utf-8', body: html };
}

export interface ConsentForm {
  action: string;
  method: string;
  fields: Record<string, string>;
  buttons: Array<{ label: string; name: string; value: string }>;
}

/** The form of a consent page as a browser sees it: where it posts, its hidden fields, its buttons by visible text. */
export function readConsentForm(html: string): ConsentForm {
  const form = /<form\s+method="([^"]*)"\s+action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error('the page has no form');
  const fields = Object.fromEntries(
    [...form[3]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((match) => [unescapeHtml(match[1]!), unescapeHtml(match[2]!)]),
  );
  const buttons = [...form[3]!.matchAll(/<button type="submit" name="([^"]*)" value="([^"]*)">([^<]*)<\/button>/g)].map((match) => ({
    name: unescapeHtml(match[1]!),
    value: unescapeHtml(match[2]!),
    label: unescapeHtml(match[3]!),
  }));
  return { method: form[1]!.toUpperCase(), action: unescapeHtml(form[2]!), fields, buttons };
}

/**
 * Presses the button with visible text `label` on the consent page `html` that was
 * served at `pageUrl`: the form's POST, as a browser sends it, without following the
 * redirect (read `Location` of the 302 answer).
 */
export async function pressConsentButton(pageUrl: string, html: string, label: string): Promise<Response> {
  const form = readConsentForm(html);
  const button = form.buttons.find((candidate) => candidate.label === label);
  if (!button) throw new Error(`the page has no button "${label}" (it has ${form.buttons.map((candidate) => `"${candidate.label}"`).join(', ')})`);
  const body = new URLSearchParams({ ...form.fields, [button.name]: button.value });
  return fetch(new URL(form.action, pageUrl), {
    method: form.method,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
    redirect: 'manual',
  });
}
