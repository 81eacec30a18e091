import { z } from 'zod';
import { flowTypes } from './flow-types.ts';

/** A flow type in a request or an answer: one of the four flows of flow-types.ts. */
export const flowTypeSchema = z.enum(flowTypes);
