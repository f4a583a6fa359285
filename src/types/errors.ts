/** Errors as data: the body every error answer carries. */

import type { ErrorCode } from '../errors/index.js';

export type { ErrorCode };

/** The JSON body of an error response: text, stable code, and details such as a SQL position. */
export interface ErrorBody {
  error: string;
  code: ErrorCode | string;
  [detail: string]: unknown;
}
