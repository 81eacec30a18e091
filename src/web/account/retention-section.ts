/** The settings page's retention section, where the event log's "Change how long" link goes. */
export const retentionSectionId = 'retention';
