import type { Page } from 'playwright-core';
import { flowSectionMessages } from '../../src/shared/flows/flow-messages.ts';
import type { FlowSection } from '../../src/shared/routes.ts';

/** Opens a part of the flow page from its tabs, as an owner does; 'overview' is the page's first view. */
export async function openFlowSection(page: Page, section: FlowSection | 'overview'): Promise<void> {
  const name = section === 'overview' ? flowSectionMessages.overview : flowSectionMessages.titles[section];
  await page.getByRole('navigation', { name: flowSectionMessages.navLabel }).getByRole('link', { name, exact: true }).click();
}
