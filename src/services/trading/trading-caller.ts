// Who a trading call is for and the credentials the request carried (never stored, never logged): the
// X-Exchange-Credentials header and a body's `credentials`, resolved by SessionResolver with the stored ones.
import type { CallerContext } from '../caller-context.js';

export interface TradingCaller extends CallerContext {
  tenant: string;
  credentialsHeader: string | undefined;
  credentialsBody: unknown;
}
