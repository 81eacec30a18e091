/**
 * Classes for a table that is a table from the `sm` breakpoint up and a list of cards
 * below it: on a phone a row of four or five columns would either scroll sideways or
 * squeeze its last column out of sight. Each cell names its column through `data-label`,
 * shown before its value on narrow screens; the header row stays for screen readers.
 * The markup stays a table at every width, so its semantics do not change with the width.
 */
export const stackedTable = {
  table: 'block w-full text-sm sm:table sm:min-w-full sm:divide-y sm:divide-slate-200',
  head: 'sr-only text-left text-xs font-semibold uppercase tracking-wide text-slate-600 sm:not-sr-only sm:table-header-group',
  body: 'block divide-y divide-slate-200 sm:table-row-group',
  row: 'block space-y-1 px-4 py-3 sm:table-row sm:space-y-0 sm:p-0',
  /** The row's own name (a `<th scope="row">`): the card's title on a phone. */
  rowHeader: 'block text-left font-semibold text-slate-900 sm:table-cell sm:px-4 sm:py-2 sm:font-medium',
  /** A cell: "label value" on a phone, an ordinary cell from `sm` up. */
  cell: "grid grid-cols-[8rem_minmax(0,1fr)] gap-3 before:text-slate-600 before:content-[attr(data-label)] sm:table-cell sm:px-3 sm:py-2 sm:before:content-none",
  /** A cell of figures, right-aligned in the table. */
  numberCell:
    "grid grid-cols-[8rem_minmax(0,1fr)] gap-3 tabular-nums before:text-slate-600 before:content-[attr(data-label)] sm:table-cell sm:px-4 sm:py-2 sm:text-right sm:before:content-none",
} as const;
